import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRenderer,
  definePlugin,
  ENGINE,
  type Engine,
  type EngineCapability,
  FORMATTER,
  type Formatter,
  num,
  QUEUE,
  type Renderer,
  STORAGE,
} from "@renderkit/core";
import { expectRenderError } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsStorage } from "../dist/defaults/fs-storage.js";
import { MemoryQueue } from "../dist/defaults/memory-queue.js";
import { EngineRegistry, FormatterRegistry } from "../dist/registry.js";

/** An engine that only carries a name: registries never drive it. */
function namedEngine(name: string, capabilities: EngineCapability[] = ["screenshot", "pdf"]): Engine {
  return {
    name,
    capabilities: new Set(capabilities),
    start: async () => {},
    open: async () => {
      throw new Error("not used");
    },
    stats: () => ({ browsers: 0, pages: 0, launches: 0 }),
    close: async () => {},
  };
}

function formatter(name: string, formats: string[], options?: Formatter["options"]): Formatter {
  return {
    name,
    options,
    formats: formats.map((format) => ({ format, contentType: `image/${format}`, extension: format, requires: ["screenshot"] })),
    render: async () => ({ body: new Uint8Array() }),
  };
}

const enginePlugin = definePlugin((name: string, capabilities?: EngineCapability[]) => ({
  name: `engine-${name}`,
  register: ({ container }) => {
    container.register(ENGINE, { useValue: namedEngine(name, capabilities) });
  },
}));

describe("EngineRegistry", () => {
  it("keys engines by name, the first is the default, and refuses a duplicate", () => {
    const registry = new EngineRegistry([namedEngine("playwright"), namedEngine("puppeteer")]);
    expect(registry.names).toEqual(["playwright", "puppeteer"]);
    expect(registry.get().name).toBe("playwright");
    expect(registry.get("puppeteer").name).toBe("puppeteer");
    expect(() => new EngineRegistry([namedEngine("playwright"), namedEngine("playwright")])).toThrow(/playwright/);
  });

  it("names what is missing", () => {
    expect(() => new EngineRegistry([namedEngine("playwright")]).get("puppeteer")).toThrow(
      expect.objectContaining({ code: "InvalidOptions", message: expect.stringContaining("@renderkit/engine-puppeteer") }),
    );
    expect(() => new EngineRegistry([]).get()).toThrow(expect.objectContaining({ code: "EngineResponseNotOkError" }));
  });
});

describe("FormatterRegistry", () => {
  it("keys formatters by format and refuses a format claimed twice", () => {
    const image = formatter("image", ["png", "jpg"]);
    const registry = new FormatterRegistry([image, formatter("svg", ["svg"])]);
    expect(registry.formats).toEqual(["png", "jpg", "svg"]);
    expect(registry.get("jpg").formatter).toBe(image);
    expect(registry.all()).toHaveLength(2);
    expect(() => new FormatterRegistry([image, formatter("other", ["webp", "png"])])).toThrow(/"png".*image.*other/);
    expect(() => registry.get("gif")).toThrow(expect.objectContaining({ code: "InvalidOptions" }));
  });
});

describe("createRenderer", () => {
  let dataDir: string;
  const renderers: Renderer[] = [];
  const make = async (options: Parameters<typeof createRenderer>[0] = {}) => {
    const renderer = await createRenderer({ dataDir, logger: silent, ...options });
    renderers.push(renderer);
    return renderer;
  };
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-registry-"));
  });
  afterAll(async () => {
    await Promise.all(renderers.map((r) => r.close(1_000)));
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses two storages and two queues", async () => {
    const twoStorages = definePlugin(() => ({
      name: "two-storages",
      register: ({ container }) => {
        container.register(STORAGE, { useValue: new FsStorage(join(dataDir, "a")) });
        container.register(STORAGE, { useValue: new FsStorage(join(dataDir, "b")) });
      },
    }));
    await expect(make({ plugins: [twoStorages()] })).rejects.toThrow(/storage/);
    const twoQueues = definePlugin(() => ({
      name: "two-queues",
      register: ({ container }) => {
        container.register(QUEUE, { useValue: new MemoryQueue() });
        container.register(QUEUE, { useValue: new MemoryQueue() });
      },
    }));
    await expect(make({ plugins: [twoQueues()] })).rejects.toThrow(/queue/);
  });

  it("refuses duplicate engine names, duplicate formats and a plugin registered twice", async () => {
    await expect(make({ plugins: [enginePlugin("x"), { ...enginePlugin("x"), name: "another" }] })).rejects.toThrow(/"x"/);
    const formats = (name: string) => ({
      name,
      register: ({ container }: { container: import("tsyringe").DependencyContainer }) => {
        container.register(FORMATTER, { useValue: formatter(name, ["png"]) });
      },
    });
    await expect(make({ plugins: [formats("one"), formats("two")] })).rejects.toThrow(/"png"/);
    await expect(make({ plugins: [enginePlugin("x"), enginePlugin("x")] })).rejects.toThrow(/twice/);
  });

  it("refuses a plugin option that redefines a core option", async () => {
    const clash = {
      name: "clash",
      register: ({ container }: { container: import("tsyringe").DependencyContainer }) => {
        container.register(FORMATTER, {
          useValue: formatter("clash", ["webp"], { width: num("again", { min: 1, max: 2 }) }),
        });
      },
    };
    await expect(make({ plugins: [clash] })).rejects.toThrow(/width/);
  });

  it("fills defaults and keeps two renderers apart", async () => {
    const a = await make({ plugins: [enginePlugin("alpha")] });
    const b = await make({ plugins: [enginePlugin("beta")] });
    expect(a.engines).toEqual(["alpha"]);
    expect(b.engines).toEqual(["beta"]);
    expect(a.formats).toEqual(["pdf", "html", "mhtml"]);
    expect(a.settings.allowPrivateNetworks).toBe(false);
    expect(a.parse({ url: "example.com", format: "pdf" }).options.format).toBe("pdf");
    expect(() => a.parse({ url: "example.com", format: "pdf", engine: "beta" })).toThrow(
      expect.objectContaining({ code: "InvalidOptions" }),
    );
  });

  it("refuses a format the engine lacks the capability for", async () => {
    const renderer = await make({ plugins: [enginePlugin("shots-only", ["screenshot"])] });
    expect(() => renderer.parse({ url: "example.com", format: "pdf" })).toThrow(
      expect.objectContaining({ code: "EngineResponseNotOkError", message: expect.stringContaining("pdf") }),
    );
  });

  it("a renderer without engines refuses renders with a clear error", async () => {
    const renderer = await make();
    await expectRenderError(renderer.render({ url: "example.com", format: "pdf" }), "EngineResponseNotOkError");
  });
});
