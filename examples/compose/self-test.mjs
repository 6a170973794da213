// Checks what can be checked without Docker: renderkit.json is a valid configuration in Redis
// mode with S3 storage, as each container sees it (same environment), and compose.yaml runs the
// roles docs/deployment.md describes with that file.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@renderkit/server";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const compose = await readFile(here("compose.yaml"), "utf8");
const env = { RENDERKIT_REDIS_URL: "redis://redis:6379" };
const config = await loadConfig({ file: here("renderkit.json"), env });

assert.equal(config.redis?.url, "redis://redis:6379");
assert.equal(config.storage.kind, "s3");
assert.equal(config.storage.bucket, "renderkit-renders");
assert.ok(compose.includes(`mc mb -p local/${config.storage.bucket}`), "compose creates the configured bucket");
assert.ok(config.baseUrl, "workers need baseUrl");
assert.ok(compose.includes('"serve", "--role", "api", "--config", "/etc/renderkit/renderkit.json"'));
assert.ok(compose.includes('"worker", "--config", "/etc/renderkit/renderkit.json"'));
assert.ok(compose.includes("./renderkit.json:/etc/renderkit/renderkit.json:ro"));
assert.ok(compose.includes("--maxmemory-policy") && compose.includes("noeviction"), "BullMQ needs noeviction");
assert.match(compose, /replicas: 2/);
console.log("compose example: renderkit.json is valid (redis mode, s3 storage) and compose.yaml runs api + 2 workers with it");
