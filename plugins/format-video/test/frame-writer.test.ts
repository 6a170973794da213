import { FrameWriter } from "@renderkit/format-video";
import { describe, expect, it } from "vitest";

/** A sink whose writes complete only when released (a full pipe). */
function slowSink() {
  const written: string[] = [];
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => {
    release = r;
  });
  return {
    written,
    open() {
      release();
    },
    close() {
      gate = new Promise<void>((r) => {
        release = r;
      });
    },
    async write(chunk: Uint8Array) {
      await gate;
      written.push(Buffer.from(chunk).toString());
    },
  };
}

describe("FrameWriter", () => {
  it("writes runs in order, one write per frame, including frames added to the run being written", async () => {
    const sink = slowSink();
    const writer = new FrameWriter(sink, 1024);
    const a = Buffer.from("a");
    expect(writer.enqueue(a, 2)).toBe(true);
    expect(writer.enqueue(a, 1)).toBe(true); // the held frame repeats: same run
    expect(writer.enqueue(Buffer.from("b"), 2)).toBe(true);
    sink.open();
    await writer.flush();
    expect(sink.written).toEqual(["a", "a", "a", "b", "b"]);
    expect(writer.written).toBe(5);
  });

  it("refuses a new image once the queued images exceed maxBytes, repeating the previous one", async () => {
    const sink = slowSink();
    const writer = new FrameWriter(sink, 10);
    expect(writer.enqueue(Buffer.from("aaaaaa"), 1)).toBe(true);
    expect(writer.enqueue(Buffer.from("bbbbbb"), 2)).toBe(false);
    sink.open();
    await writer.flush();
    expect(sink.written).toEqual(["aaaaaa", "aaaaaa", "aaaaaa"]);
    expect(writer.enqueue(Buffer.from("cccccc"), 1)).toBe(true); // drained: room again
    await writer.flush();
    expect(sink.written.at(-1)).toBe("cccccc");
  });

  it("reports the sink's error and discards later frames", async () => {
    const boom = new Error("ffmpeg died");
    const writer = new FrameWriter(
      {
        async write() {
          throw boom;
        },
      },
      1024,
    );
    writer.enqueue(Buffer.from("a"), 3);
    await expect(writer.flush()).rejects.toBe(boom);
    expect(writer.error).toBe(boom);
    expect(writer.enqueue(Buffer.from("b"), 1)).toBe(false);
  });
});
