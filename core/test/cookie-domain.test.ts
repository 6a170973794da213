import { RenderError } from "@renderkit/core";
import { scopeCookies } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";

describe("scopeCookies (the cookies option's Domain rule)", () => {
  it("makes a cookie without Domain host-only for the rendered address", () => {
    const [cookie] = scopeCookies([{ name: "session", value: "abc" }], { url: "https://example.com/a/b" });
    expect(cookie).toMatchObject({ name: "session", value: "abc", url: "https://example.com/a/b", path: "/" });
    expect(cookie?.domain).toBeUndefined();
  });

  it("keeps a cookie's own Domain, Path and flags", () => {
    const spec = {
      name: "n",
      value: "v",
      domain: ".example.com",
      path: "/docs",
      httpOnly: true,
      secure: true,
      sameSite: "Lax" as const,
    };
    const [cookie] = scopeCookies([spec], { url: "https://www.example.com/" });
    expect(cookie).toEqual({ ...spec });
    expect(cookie?.url).toBeUndefined();
  });

  it("gives a Domain cookie without Path the path /", () => {
    const [cookie] = scopeCookies([{ name: "n", value: "v", domain: "example.com" }], { html: "<p>hi</p>" });
    expect(cookie).toMatchObject({ domain: "example.com", path: "/" });
  });

  it("refuses a cookie without Domain when rendering html, naming the cookie", () => {
    const scoping = () =>
      scopeCookies(
        [
          { name: "ok", value: "1", domain: "example.com" },
          { name: "bare", value: "2" },
        ],
        { html: "<p>hi</p>" },
      );
    expect(scoping).toThrow(RenderError);
    expect(scoping).toThrow(
      expect.objectContaining({ code: "InvalidOptions", message: expect.stringContaining("cookie bare needs a Domain") }),
    );
  });

  it("takes an empty Domain as none", () => {
    expect(() => scopeCookies([{ name: "n", value: "v", domain: "" }], { html: "" })).toThrow(/needs a Domain/);
    const [cookie] = scopeCookies([{ name: "n", value: "v", domain: "" }], { url: "http://example.com/" });
    expect(cookie).toMatchObject({ url: "http://example.com/" });
  });
});
