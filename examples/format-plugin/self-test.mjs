// Self-test of the format plugin (CI runs it): renders a fixture page on loopback to txt with both
// first-party engines and checks what a user would: the visible text, the option, the errors. Then
// the real server loads the plugin by package name and renders txt over HTTP (server-self-test.mjs).

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer, definePlugin, FORMATTER } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { serverSelfTest } from "./server-self-test.mjs";
import { textFormat } from "./text-format.mjs";

const PAGE = `<!doctype html><title>Title is not body text</title>
<body><h1>Quarterly report</h1><p id="intro">Sales went up.</p>
<p style="display:none">hidden words</p>
<script>document.body.insertAdjacentHTML("beforeend", "<p>Built by script</p>")</script></body>`;

async function expectCode(promise, code, option) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.code, code, error.message);
    if (option) assert.match(error.message, new RegExp(option));
    return true;
  });
}

const fixture = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
await new Promise((resolve) => fixture.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${fixture.address().port}/`;
const dataDir = await mkdtemp(join(tmpdir(), "renderkit-format-plugin-"));
const logger = new ConsoleLogger("silent");
let renderer;
try {
  renderer = await createRenderer({
    plugins: [playwright(), puppeteer(), textFormat({ maxChars: 5_000 })],
    dataDir,
    allowPrivateNetworks: [new URL(url).host],
    logger,
  });
  for (const engine of ["playwright", "puppeteer"]) {
    const result = await renderer.render({ url, format: "txt", engine });
    assert.equal(result.contentType, "text/plain; charset=utf-8");
    const text = await readFile(result.path, "utf8");
    assert.match(text, /^Quarterly report\n/);
    assert.match(text, /Sales went up\./);
    assert.match(text, /Built by script/);
    assert.doesNotMatch(text, /hidden words|insertAdjacentHTML|Title is not/);
    assert.equal(result.characters, text.length);
    assert.equal(result.truncated, false);

    const element = await renderer.render({ url, format: "txt", engine, selector: "#intro" });
    assert.equal(await readFile(element.path, "utf8"), "Sales went up.");
  }
  // The plugin's own option, in both spellings and from form strings.
  const cut = await renderer.render({ url, format: "txt", txt_max_chars: "9" });
  assert.equal(await readFile(cut.path, "utf8"), "Quarterly");
  assert.equal(cut.truncated, true);
  assert.equal((await renderer.render({ url, format: "txt", txtMaxChars: 3 })).characters, 3);
  // Bad values are refused when the request is parsed, naming the option.
  await expectCode(renderer.render({ url, format: "txt", txt_max_chars: "many" }), "InvalidOptions", "txt_max_chars");
  await expectCode(renderer.render({ url, format: "txt", txt_max_chars: 6_000 }), "InvalidOptions", "at most 5000");
  await expectCode(renderer.render({ url, format: "txt", selector: "#missing" }), "EngineResponseNotOkError", "#missing");
  // A plugin registered twice, and two plugins claiming one format, are refused when the renderer starts.
  await assert.rejects(createRenderer({ plugins: [playwright(), textFormat(), textFormat()], dataDir, logger }), /twice/);
  const rival = definePlugin(() => ({
    name: "another/txt",
    register({ provide }) {
      const formats = [{ format: "txt", contentType: "text/plain", extension: "txt", requires: [] }];
      provide(FORMATTER, { name: "another/txt", formats, render: async () => ({ body: new Uint8Array() }) });
    },
  }));
  await assert.rejects(createRenderer({ plugins: [playwright(), textFormat(), rival()], dataDir, logger }), /txt/);
  // A plugin made for another core is refused too, naming it, its range and this core's version.
  await assert.rejects(
    createRenderer({ plugins: [playwright(), { ...textFormat(), core: "^99.0.0" }], dataDir, logger }),
    /^Error: Plugin example\/format-text supports @renderkit\/core \^99\.0\.0, but this is @renderkit\/core \d+\.\d+\.\d+/,
  );
  // One Chromium at a time: the embedded renderer's goes before the server starts its own.
  await renderer.close();
  renderer = undefined;
  await serverSelfTest(PAGE);
  console.log(
    "self-test passed: txt on playwright and puppeteer, txt_max_chars, errors, duplicate format and another core refused; " +
      "in the server by package name: txt over HTTP, maxChars from its options",
  );
} catch (error) {
  console.error(`self-test failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await renderer?.close();
  fixture.closeAllConnections();
  fixture.close();
  await rm(dataDir, { recursive: true, force: true });
}
