import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RenderError } from "@renderkit/core";
import { FfmpegProcess, findFfmpeg, listEncoders, STDERR_LIMIT } from "@renderkit/format-video";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpegChildren } from "./helpers.js";

let dir: string;
let fake: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rk-find-ffmpeg-"));
  fake = join(dir, "ffmpeg");
  await writeFile(fake, "#!/bin/sh\nexit 0\n");
  await chmod(fake, 0o755);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const never = new AbortController().signal;

describe("findFfmpeg", () => {
  it("prefers the explicit path, then FFMPEG_PATH, then PATH", () => {
    expect(findFfmpeg(fake, { FFMPEG_PATH: "/usr/bin/ffmpeg", PATH: "" })).toEqual({ path: fake, source: "option" });
    expect(findFfmpeg(undefined, { FFMPEG_PATH: fake, PATH: "/usr/bin" })).toEqual({ path: fake, source: "FFMPEG_PATH" });
    expect(findFfmpeg(undefined, { PATH: `/nonexistent:${dir}` })).toEqual({ path: fake, source: "PATH" });
  });

  it("fails clearly, naming what to install, when nothing works", () => {
    const error = (() => {
      try {
        findFfmpeg(undefined, { PATH: "/nonexistent" });
      } catch (e) {
        return e as RenderError;
      }
    })();
    expect(error).toBeInstanceOf(RenderError);
    expect(error?.code).toBe("EngineResponseNotOkError");
    expect(error?.message).toMatch(/apt-get install ffmpeg/);
    expect(() => findFfmpeg(undefined, { FFMPEG_PATH: join(dir, "missing"), PATH: "/usr/bin" })).toThrow(/FFMPEG_PATH/);
  });

  it("lists the encoders of the system ffmpeg", async () => {
    const encoders = await listEncoders(findFfmpeg(undefined, { PATH: process.env.PATH }).path);
    for (const name of ["libx264", "libvpx-vp9", "libvpx"]) expect(encoders.has(name)).toBe(true);
  });
});

describe("FfmpegProcess", () => {
  const ffmpeg = () => findFfmpeg(undefined, { PATH: process.env.PATH }).path;
  // Runs until killed and never reads stdin, so writes fill the pipe and wait for `drain`.
  const forever = [
    "-hide_banner",
    "-loglevel",
    "error",
    "-nostdin",
    "-re",
    "-f",
    "lavfi",
    "-i",
    "color=s=16x16",
    "-f",
    "null",
    "-",
  ];

  it("SIGKILLs ffmpeg when the timeout passes", async () => {
    const proc = new FfmpegProcess(ffmpeg(), forever, { signal: never, timeoutMs: 300 });
    expect(ffmpegChildren()).toContain(proc.pid);
    expect((await proc.exited).signal).toBe("SIGKILL");
    expect(proc.error()).toMatchObject({ code: "RenderTimeoutError" });
    await expect(proc.finish()).rejects.toMatchObject({ code: "RenderTimeoutError" });
    expect(ffmpegChildren()).not.toContain(proc.pid);
  });

  it("SIGKILLs ffmpeg when the render is cancelled, and rejects pending writes", async () => {
    const controller = new AbortController();
    const proc = new FfmpegProcess(ffmpeg(), forever, { signal: controller.signal, timeoutMs: 60_000 });
    const writing = (async () => {
      for (;;) await proc.write(Buffer.alloc(1024 * 1024, 1));
    })();
    setTimeout(() => controller.abort(new RenderError("TimedOutError", "stopped")), 200);
    await expect(writing).rejects.toMatchObject({ code: "TimedOutError" });
    await proc.dispose();
    expect(proc.running).toBe(false);
    expect(ffmpegChildren()).not.toContain(proc.pid);
  });

  it("reports ffmpeg's own error with the end of its stderr (bounded)", async () => {
    const proc = new FfmpegProcess(
      ffmpeg(),
      ["-hide_banner", "-loglevel", "error", "-f", "nosuchformat", "-i", "pipe:0", "out.mp4"],
      {
        signal: never,
        timeoutMs: 10_000,
      },
    );
    const error = await proc.finish().then(
      () => undefined,
      (e: RenderError) => e,
    );
    expect(error?.code).toBe("EngineResponseNotOkError");
    expect(error?.message).toMatch(/exit code 1.*nosuchformat/s);
    expect(proc.stderrTail().length).toBeLessThanOrEqual(STDERR_LIMIT);
  });

  it("turns a binary that cannot start into a RenderError naming what to install", async () => {
    const proc = new FfmpegProcess(join(dir, "missing-ffmpeg"), [], { signal: never, timeoutMs: 10_000 });
    await expect(proc.finish()).rejects.toMatchObject({ code: "EngineResponseNotOkError", message: /apt-get install ffmpeg/ });
    await proc.dispose();
  });
});
