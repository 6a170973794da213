// `npm run bench`: every benchmark in one run, printed as tables with ratios (never asserted).
// `node test/bench/run.mjs <name>` runs one of them.

const benches = {
  throughput: async () => (await import("./throughput.mjs")).benchThroughput(),
  startup: async () => (await import("./startup.mjs")).benchStartup(),
  markdown: async () => (await import("./markdown.mjs")).benchMarkdown(),
  svg: async () => (await import("./svg.mjs")).benchSvg(),
  video: async () => (await import("./video.mjs")).benchVideo(),
  "full-page": async () => (await import("./full-page.mjs")).benchFullPage(),
  scale: async () => (await import("./scale.mjs")).benchScale(),
};
/** Analyses run only when named (`node test/bench/run.mjs breakdown`). */
const named = {
  breakdown: async () => (await import("./breakdown.mjs")).benchBreakdown(),
  "video-capture": async () => (await import("./video-capture.mjs")).benchVideoCapture(),
};
const only = process.argv[2];
if (only && named[only]) {
  console.log(`\n${await named[only]()}\n`);
  process.exit(0);
}
if (only && !benches[only]) {
  console.error(`unknown bench ${only}; one of: ${[...Object.keys(benches), ...Object.keys(named)].join(", ")}`);
  process.exit(2);
}
for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  console.log(`\n${await bench()}\n`);
}
