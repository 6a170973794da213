import { planOutput } from "@renderkit/format-image";
import { describe, expect, it } from "vitest";

const screen = { width: 1280, height: 800 };
const NO_LIMIT = 1_000_000;

describe("planOutput", () => {
  it("keeps the capture's size without thumbs", () => {
    expect(planOutput(screen, {}, NO_LIMIT)).toEqual({ resize: undefined, width: 1280, height: 800, truncated: false });
  });

  it("scales to one side keeping the aspect ratio", () => {
    expect(planOutput(screen, { width: 640 }, NO_LIMIT)).toMatchObject({ width: 640, height: 400, truncated: false });
    expect(planOutput(screen, { height: 200 }, NO_LIMIT)).toMatchObject({ width: 320, height: 200 });
    expect(planOutput(screen, { width: 333 }, NO_LIMIT)).toMatchObject({ width: 333, height: 208 });
    expect(planOutput({ width: 4000, height: 3 }, { width: 10 }, NO_LIMIT)).toMatchObject({ width: 10, height: 1 });
  });

  it("never enlarges with one side", () => {
    expect(planOutput(screen, { width: 2560 }, NO_LIMIT)).toEqual({
      resize: undefined,
      width: 1280,
      height: 800,
      truncated: false,
    });
    expect(planOutput(screen, { height: 800 }, NO_LIMIT).resize).toBeUndefined();
  });

  it("covers an exact box with both sides, enlarging if needed", () => {
    expect(planOutput(screen, { width: 300, height: 300 }, NO_LIMIT)).toEqual({
      resize: { width: 300, height: 300, fit: "cover" },
      width: 300,
      height: 300,
      truncated: false,
    });
    expect(planOutput(screen, { width: 2000, height: 500 }, NO_LIMIT)).toMatchObject({ width: 2000, height: 500 });
  });

  it("cuts to the encoder's limit and says so", () => {
    expect(planOutput({ width: 1280, height: 16_384 }, {}, 16_383)).toEqual({
      resize: undefined,
      width: 1280,
      height: 16_383,
      truncated: true,
    });
    expect(planOutput({ width: 1280, height: 16_384 }, { width: 640 }, 16_383)).toMatchObject({ height: 8192, truncated: false });
  });

  it("img_fit: fill and contain give the box; inside fits within it, outside covers it without cropping", () => {
    for (const fit of ["fill", "contain", "cover"] as const) {
      expect(planOutput(screen, { width: 300, height: 300, fit }, NO_LIMIT)).toMatchObject({ width: 300, height: 300 });
    }
    expect(planOutput(screen, { width: 300, height: 300, fit: "inside" }, NO_LIMIT)).toMatchObject({
      resize: { width: 300, height: 300, fit: "inside" },
      width: 300,
      height: 188,
    });
    expect(planOutput(screen, { width: 300, height: 300, fit: "outside" }, NO_LIMIT)).toMatchObject({ width: 480, height: 300 });
  });

  it("reserves room for padding and the header strip below the encoder's limit", () => {
    expect(planOutput({ width: 1280, height: 16_383 }, {}, 16_383, { width: 20, height: 52 })).toMatchObject({
      width: 1280,
      height: 16_331,
      truncated: true,
    });
  });
});
