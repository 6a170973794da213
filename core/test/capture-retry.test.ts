import { captureOrRetry } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";

/** Chromium's answer when it had no frame of the page to copy, as the drivers word it. */
const NO_FRAME = new Error("Protocol error (Page.captureScreenshot): Unable to capture screenshot");

describe("captureOrRetry", () => {
  it("captures once more after the page's next frame when Chromium had no frame to copy", async () => {
    const calls: string[] = [];
    let attempts = 0;
    const shot = await captureOrRetry(
      async () => {
        calls.push("capture");
        if (attempts++ === 0) throw NO_FRAME;
        return "picture";
      },
      async () => calls.push("next frame"),
    );
    expect(shot).toBe("picture");
    expect(calls).toEqual(["capture", "next frame", "capture"]);
  });

  it("answers another error at once, without waiting for a frame or capturing again", async () => {
    const calls: string[] = [];
    const failing = captureOrRetry(
      async () => {
        calls.push("capture");
        throw new Error("Target closed");
      },
      async () => calls.push("next frame"),
    );
    await expect(failing).rejects.toThrow("Target closed");
    expect(calls).toEqual(["capture"]);
  });

  it("gives the second failure to the caller, and captures again when the next frame never comes", async () => {
    let attempts = 0;
    const failing = captureOrRetry(
      async () => {
        attempts++;
        throw NO_FRAME;
      },
      () => new Promise(() => undefined),
    );
    await expect(failing).rejects.toThrow("Unable to capture screenshot");
    expect(attempts).toBe(2);
  });
});
