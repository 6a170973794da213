import { describe, expect, it } from "vitest";
import { PRIVATE_SIDE_SUFFIXES, privateSideFileRender, sideFileKey } from "../dist/side/side-keys.js";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e_s";

describe("side file keys", () => {
  it("carry a fresh 128-bit base64url token between the render id and the suffix", () => {
    const keys = Array.from({ length: 200 }, () => sideFileKey(ID, "-cookies.json"));
    for (const key of keys) expect(key).toMatch(new RegExp(`^${ID}-[A-Za-z0-9_-]{22}-cookies\\.json$`));
    expect(new Set(keys).size).toBe(keys.length);
    expect(sideFileKey(ID, ".html")).toMatch(new RegExp(`^${ID}-[A-Za-z0-9_-]{22}\\.html$`));
  });

  it("name the render of a cookie or header file, whatever its token holds (dashes included)", () => {
    for (const suffix of PRIVATE_SIDE_SUFFIXES) {
      expect(privateSideFileRender(sideFileKey(ID, suffix))).toBe(ID);
      expect(privateSideFileRender(`${ID}-abcdefghij-klmnopqrstu-${suffix.slice(1)}`)).toBe(ID);
      expect(privateSideFileRender(`${ID}-${"-".repeat(22)}${suffix}`)).toBe(ID);
      expect(privateSideFileRender(`${ID}--${"_".repeat(22)}${suffix}`)).toBe(`${ID}-`);
    }
  });

  it("are not private for other side files, old names or malformed tokens", () => {
    for (const key of [
      sideFileKey(ID, ".html"),
      sideFileKey(ID, "-links.json"),
      sideFileKey(ID, ".json"),
      `${ID}-cookies.json`,
      `${ID}-headers.json`,
      `${ID}-abc-cookies.json`,
      `${ID}-abcdefghijklmnopqrstu.-cookies.json`,
      `-abcdefghijklmnopqrstuv-cookies.json`,
      `${ID}.png`,
    ]) {
      expect(privateSideFileRender(key), key).toBeUndefined();
    }
  });
});
