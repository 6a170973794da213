import { parseClip, parsePadding } from "@renderkit/core/page";
import { describe, expect, it } from "vitest";

describe("clip and img_pad values", () => {
  it("parses clip as x,y,width,height and refuses anything else", () => {
    expect(parseClip("10, 20,300.5,40")).toEqual({ x: 10, y: 20, width: 300.5, height: 40 });
    for (const bad of ["", "1,2,3", "1,2,3,4,5", "0,0,0,5", "0,0,5,0", "-1,0,5,5", "0,0,16385,5", "0,0,5,60001", "x,0,5,5"]) {
      expect(parseClip(bad), bad).toBeUndefined();
    }
  });

  it("parses img_pad in CSS shorthand order", () => {
    expect(parsePadding(7)).toEqual({ top: 7, right: 7, bottom: 7, left: 7 });
    expect(parsePadding("1,2")).toEqual({ top: 1, right: 2, bottom: 1, left: 2 });
    expect(parsePadding("1,2,3")).toEqual({ top: 1, right: 2, bottom: 3, left: 2 });
    expect(parsePadding("1, 2, 3, 4")).toEqual({ top: 1, right: 2, bottom: 3, left: 4 });
    for (const bad of ["", "1,2,3,4,5", "2001", "1.5", "a"]) expect(parsePadding(bad), bad).toBeUndefined();
  });
});
