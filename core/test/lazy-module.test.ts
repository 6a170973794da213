import { lazyModule } from "@renderkit/core/internal";
import { describe, expect, it } from "vitest";

describe("lazyModule", () => {
  it("imports on the first load only, and tells whether it is loaded", async () => {
    let imports = 0;
    const lazy = lazyModule("a module", async () => {
      imports++;
      return { answer: 42 };
    });
    expect(imports).toBe(0);
    expect(lazy.loaded()).toBeUndefined();
    expect(() => lazy.get()).toThrow("a module used before it was loaded");
    const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
    expect(first).toBe(second);
    expect(imports).toBe(1);
    expect(lazy.loaded()).toBe(first);
    expect(lazy.get().answer).toBe(42);
  });

  it("a failed import fails its load and every later one, and leaves it unloaded", async () => {
    const specifier: string = "renderkit-no-such-module";
    const lazy = lazyModule("missing", () => import(specifier));
    await expect(lazy.load()).rejects.toThrow(/renderkit-no-such-module/);
    await expect(lazy.load()).rejects.toThrow(/renderkit-no-such-module/);
    expect(lazy.loaded()).toBeUndefined();
  });
});
