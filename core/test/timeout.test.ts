import { raceSignal, withTimeout } from "@renderkit/core";
import { afterEach, describe, expect, it } from "vitest";

const unhandled: unknown[] = [];
const record = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", record);
afterEach(() => {
  unhandled.length = 0;
});

function rejectLater(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error("late failure")), ms));
}

describe("raceSignal", () => {
  it("rejects with the abort reason when the signal aborts first", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 10);
    await expect(raceSignal(new Promise(() => undefined), controller.signal)).rejects.toThrow("stop");
  });

  it("keeps a late failure of work started before an earlier abort from going unhandled", async () => {
    const controller = new AbortController();
    controller.abort(new Error("already stopped"));
    await expect(raceSignal(rejectLater(20), controller.signal)).rejects.toThrow("already stopped");
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(unhandled).toEqual([]);
  });

  it("passes the value through when the work wins", async () => {
    await expect(raceSignal(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });
});

describe("withTimeout", () => {
  it("rejects with the given error after the time runs out", async () => {
    await expect(withTimeout(new Promise(() => undefined), 20, () => new Error("too slow"))).rejects.toThrow("too slow");
  });
});
