// Cold start of the server: from spawning `renderkit serve` (files, defaults, a fresh data dir and
// a free port) to the first successful `POST /v1/render/sync` png, per engine; also when the port
// first answered (503 while starting) and when /health first said 200. Engines alternated over
// BENCH_STARTUP_RUNS runs (default 3); medians.

import { SIMPLE } from "./pages.mjs";
import { renderOverHttp, servePages, spawnServer, waitAnswering } from "./serve.mjs";
import { percentile, table } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const ENGINES = ["playwright", "puppeteer"];

async function once(engine, site, url) {
  const started = performance.now();
  const server = await spawnServer({ engine, site });
  try {
    await waitAnswering(server, { ready: false });
    const answering = performance.now() - started;
    await waitAnswering(server);
    const ready = performance.now() - started;
    const png = await renderOverHttp(server, { url });
    if (png[0] !== 0x89 || png[1] !== 0x50) throw new Error("the render is not a PNG");
    return { answering, ready, firstRender: performance.now() - started };
  } finally {
    await server.stop();
  }
}

export async function benchStartup() {
  const { server, host, urls } = await servePages({ simple: SIMPLE });
  const times = Object.fromEntries(ENGINES.map((e) => [e, []]));
  const errors = {};
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const engine of i % 2 === 0 ? ENGINES : [...ENGINES].reverse()) {
        if (errors[engine]) continue;
        try {
          times[engine].push(await once(engine, host, urls.simple));
        } catch (error) {
          errors[engine] = String(error?.message ?? error)
            .split("\n")[0]
            .slice(0, 200);
        }
      }
    }
  } finally {
    server.close();
  }
  const rows = ENGINES.map((engine) => {
    if (errors[engine]) return { engine, "first render ms (median)": `error: ${errors[engine]}`, runs: "-" };
    const median = (key) =>
      percentile(
        times[engine].map((t) => t[key]).sort((a, b) => a - b),
        50,
      ).toFixed(0);
    return {
      engine,
      "port answers ms (median)": median("answering"),
      "health 200 ms (median)": median("ready"),
      "first render ms (median)": median("firstRender"),
      "first render ms (each)": times[engine].map((t) => t.firstRender.toFixed(0)).join(" / "),
      runs: times[engine].length,
    };
  });
  const columns = [
    ...["engine", "port answers ms (median)", "health 200 ms (median)"],
    ...["first render ms (median)", "first render ms (each)", "runs"],
  ];
  const filled = rows.map((r) => Object.fromEntries(columns.map((k) => [k, r[k] ?? "-"])));
  return `Startup: spawn \`renderkit serve\` (files, fresh data dir) to first sync png\n${table(filled, columns)}`;
}
