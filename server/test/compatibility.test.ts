import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../dist/http/context.js";
import { takeServerOptions } from "../dist/http/server-options.js";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

// docs/compatibility.md against a running server: every name it calls ignored (or supported on
// render links only) comes back in X-Ignored-Options of the API, and none of the names it calls
// supported does.

const A = PROJECT_A.secretKey;
const DOC = readFileSync(new URL("../../docs/compatibility.md", import.meta.url), "utf8");
const CATALOGUE = JSON.parse(readFileSync(new URL("../../scripts/compat/catalogue.json", import.meta.url), "utf8")) as {
  sections: { section: string; names: string[] }[];
};

/** name → status cell (`supported`, `supported (server)`, `ignored: [...]`...) of the "Every catalogue option" tables. */
function docStatuses(): Map<string, string> {
  const part = DOC.slice(DOC.indexOf("\n## Every catalogue option"), DOC.indexOf("\n## Beyond the catalogue"));
  const statuses = new Map<string, string>();
  for (const line of part.split("\n")) {
    const row = line.match(/^\| `([^`]+)` +\| ([^|]+)/);
    if (row?.[1] && row[2]) statuses.set(row[1], row[2].trim());
  }
  return statuses;
}

const statuses = docStatuses();
/** What the JSON API does with each name: `supported`, or `ignored` (ignored ones and those only render links read). */
const onApi = (status: string) =>
  status.startsWith("ignored") || status.includes("(links only)") ? "ignored" : status.split(/[ ;]/)[0];
const named = (kind: string) => [...statuses].filter(([, s]) => onApi(s) === kind).map(([name]) => name);

/** Groups of names whose `X-Ignored-Options` value stays under the server's 1,000-character cut. */
function batches(names: string[], limit = 900): string[][] {
  const out: string[][] = [[]];
  let length = 0;
  for (const name of names) {
    const current = out.at(-1) as string[];
    if (current.length > 0 && length + 2 + name.length > limit) {
      out.push([name]);
      length = name.length;
    } else {
      length += (current.length > 0 ? 2 : 0) + name.length;
      current.push(name);
    }
  }
  return out;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("docs/compatibility.md", () => {
  it("gives every catalogue name a status, supported or ignored", () => {
    const catalogue = CATALOGUE.sections.flatMap((s) => s.names);
    expect(catalogue.length).toBeGreaterThan(300);
    expect([...statuses.keys()].sort()).toEqual([...catalogue].sort());
    expect(new Set([...statuses.values()].map(onApi))).toEqual(new Set(["supported", "ignored"]));
    // The rule: SaaS-only options stay ignored.
    for (const name of ["use_stealth", "solve_captchas", "llm_prompt", "pov_country", "use_azure"]) {
      expect(statuses.get(name), name).toMatch(/^ignored: \[SaaS-only\]/);
    }
  });

  it("names exactly the ignored ones in X-Ignored-Options of an async render, which still succeeds", async () => {
    const ignored = named("ignored");
    expect(ignored.length).toBeGreaterThan(50);
    const renderIds: string[] = [];
    for (const batch of batches(ignored)) {
      const json = { html: "<p>compatibility</p>", ...Object.fromEntries(batch.map((name) => [name, "1"])) };
      const answer = await api(server.url, "/v1/render/async", { json, key: A });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.headers.get("x-ignored-options")?.split(", ")).toEqual(batch);
      renderIds.push(answer.body.renderId);
    }
    for (const renderId of renderIds) {
      let status = "created";
      for (let i = 0; i < 600 && (status === "created" || status === "retrying"); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 250));
        status = (await api(server.url, `/v1/render/${renderId}`, { key: A })).body.status;
      }
      expect(status, renderId).toBe("succeeded");
    }
  }, 240_000);

  it("names options the format does not read (quality with png, pdf_page_size with jpg) in X-Ignored-Options, and renders", async () => {
    const html = "<p>compatibility</p>";
    const png = await api(server.url, "/v1/render/sync", {
      json: { html, format: "png", quality: 80, pdfPageSize: "A4", media: "print", width: 320, height: 200 },
      key: A,
    });
    expect(png.status, png.text).toBe(200);
    expect(png.headers.get("x-ignored-options")).toBe("quality, pdfPageSize, media");
    expect(png.body.size).toBeGreaterThan(0);
    // The formats that read them do not report them.
    const jpg = await api(server.url, "/v1/render/sync", { json: { html, format: "jpg", quality: 50 }, key: A });
    expect(jpg.status, jpg.text).toBe(200);
    expect(jpg.headers.get("x-ignored-options")).toBeNull();
    const pdf = await api(server.url, "/v1/render/sync", {
      json: { html, format: "pdf", pdf_page_size: "A5", media: "screen" },
      key: A,
    });
    expect(pdf.status, pdf.text).toBe(200);
    expect(pdf.headers.get("x-ignored-options")).toBeNull();
  }, 120_000);

  it("has the server take or the renderer parse every supported name, in any spelling it lists", async () => {
    const supported = named("supported");
    expect(supported).toEqual(expect.arrayContaining(["url", "full_page", "webhook_url", "response_type"]));
    // No values: each option needs a valid one; an absent value still goes through name lookup.
    const input = Object.fromEntries(supported.map((name) => [name, undefined]));
    const { render } = await takeServerOptions(input, { config: server.config } as unknown as AppContext);
    const parsed = server.running.renderer.parse({ ...render, html: "<p>compatibility</p>" });
    expect(parsed.ignored).toEqual([]);
    // The same lookup does report a name the doc calls ignored.
    const control = server.running.renderer.parse({ ...render, html: "<p>x</p>", use_stealth: undefined });
    expect(control.ignored).toEqual(["use_stealth"]);
  });
});
