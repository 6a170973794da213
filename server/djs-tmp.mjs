import { createRenderer, ConsoleLogger } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { videoFormats } from "@renderkit/format-video";
import { serveHtml } from "../test/bench/serve.mjs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
const PAGE = `<!doctype html><title>t</title><h1>hello</h1><p>${"Lorem ipsum. ".repeat(40)}</p><div style="height:3000px;background:linear-gradient(red,blue)"></div><p>end</p>`;
const { server, url } = await serveHtml(PAGE);
const r = await createRenderer({ plugins: [playwright(), videoFormats()], dataDir: "/tmp/prof-data", allowPrivateNetworks: [new URL(url).host], logger: new ConsoleLogger("silent") });
for (const dj of [false, true]) {
  const res = await r.render({ url, format: "mp4", video_duration: 2, video_scroll: true, disable_js: dj });
  const file = fileURLToPath(res.renderUrl);
  const out = execFileSync("ffmpeg", ["-v", "error", "-i", file, "-vf", "select='eq(n\\,0)+eq(n\\,59)',signalstats,metadata=print:key=lavfi.signalstats.YAVG", "-f", "null", "-"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  console.log("disable_js", dj, "frameRate", res.frameRate, JSON.stringify(Object.fromEntries(Object.entries(res).filter(([k]) => /frame|video|scroll/i.test(k)))));
}
await r.close(); server.close();
