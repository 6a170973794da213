// `npm run bench`: every benchmark in one run, printed as tables with ratios (never asserted).
import { benchScreenshots } from "./screenshots.mjs";

const benches = {
  screenshots: benchScreenshots,
  engines: async () => (await import("./engines.mjs")).benchEngines(),
  markdown: async () => (await import("./markdown.mjs")).benchMarkdown(),
  svg: async () => (await import("./svg.mjs")).benchSvg(),
  video: async () => (await import("./video.mjs")).benchVideo(),
  "full-page": async () => (await import("./full-page.mjs")).benchFullPage(),
  scale: async () => (await import("./scale.mjs")).benchScale(),
};
const only = process.argv[2];
for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  console.log(`\n${await bench()}\n`);
}
