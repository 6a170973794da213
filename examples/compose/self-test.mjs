// Checks what can be checked without Docker: renderkit.json is a valid configuration in Redis
// mode with S3 storage, as each container sees it (same environment), and compose.yaml runs the
// roles docs/deployment.md describes with that file. Then that both compose files and the root
// Dockerfile agree: same image, /data as the data directory and volume, a non-root user, the
// health check on /health, and every RENDERKIT_* variable they set taking effect in loadConfig.
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

// --- the image and the compose files (text checks: Docker is not installed on the dev machine) ---
const root = (name) => fileURLToPath(new URL(`../../${name}`, import.meta.url));
const dockerfile = await readFile(root("Dockerfile"), "utf8");
const single = await readFile(root("compose.yaml"), "utf8");
const dockerignore = (await readFile(root(".dockerignore"), "utf8")).split("\n");
const setup = await readFile(root("scripts/container-setup.sh"), "utf8");

assert.match(
  compose,
  /image: renderkit:local\n\s+build:\n\s+context: \.\.\/\.\.\n\s+dockerfile: Dockerfile\n/,
  "scale-out builds the root image",
);
assert.match(single, /build: \.\n\s+image: renderkit:local\n/, "single node builds the same image");
assert.equal(config.dataDir, "/data", "renderkit.json keeps data in the image's volume");
assert.match(dockerfile, /^VOLUME \["\/data"\]$/m);
assert.match(dockerfile, /RENDERKIT_DATA_DIR=\/data/);
assert.match(single, /- renderkit-data:\/data\n/, "single node mounts its volume at /data");
const user = dockerfile.match(/^USER (\S+)$/m)?.[1];
assert.ok(user && user !== "root" && user !== "0", "the image runs as a non-root user");
assert.ok(dockerfile.includes(`container-setup.sh --packages --user ${user} --check`), "the set-up script creates that user");
assert.match(dockerfile, /^HEALTHCHECK .*\n?.*\/health/m);
assert.match(dockerfile, /^ENTRYPOINT \["tini", "--"/m);
for (const pkg of ["chromium", "ffmpeg", "poppler-utils", "fonts-noto-cjk", "fonts-noto-color-emoji", "tini"]) {
  assert.match(setup, new RegExp(`^PACKAGES=\\(.*\\b${pkg}\\b`, "m"), `container-setup.sh installs ${pkg}`);
}
for (const entry of ["**/node_modules", "**/dist", "**/.renderkit", ".git"]) {
  assert.ok(dockerignore.includes(entry), `.dockerignore leaves out ${entry}`);
}
// The port the server listens on in the image is the one both compose files publish.
assert.match(dockerfile, /PORT=8080/);
assert.match(dockerfile, /^EXPOSE 8080$/m);
assert.equal(config.port, 8080);
assert.ok(single.includes('"8080:8080"') && compose.includes('"8080:8080"'));
// Workers serve no HTTP: the image's health check would mark them unhealthy.
assert.match(compose, /worker:\n(?:.*\n)*?\s+healthcheck:\n\s+disable: true\n/, "workers disable the health check");

// Every RENDERKIT_* variable the image and compose files set is one the server reads.
const notConfig = new Set([
  "RENDERKIT_MASTER_KEY",
  "RENDERKIT_CONFIG",
  "RENDERKIT_CHROMIUM",
  "RENDERKIT_LOG_FORMAT",
  "RENDERKIT_SKIP_APT",
]);
const setVars = new Map();
for (const text of [dockerfile, single, compose]) {
  for (const [, name, value] of text.matchAll(/(RENDERKIT_[A-Z0-9_]+)(?:=|: )(\S+)/g)) {
    if (!notConfig.has(name)) setVars.set(name, value.replace(/^\$\{[A-Z_]+:-(.*)\}$/, "$1"));
  }
}
// How each shows in the configuration, with a probe value unlike the default (so a variable the
// server ignored would fail here); the compose files' own values must load too.
const effect = {
  RENDERKIT_DATA_DIR: [(c) => c.dataDir, "/srv/probe"],
  RENDERKIT_REDIS_URL: [(c) => c.redis?.url, "redis://probe:6379"],
  RENDERKIT_BASE_URL: [(c) => c.baseUrl, "https://probe.example"],
  RENDERKIT_CONCURRENCY: [(c) => c.concurrency, 7],
};
assert.ok(setVars.size >= 4, `found the variables: ${[...setVars.keys()]}`);
for (const [name, value] of setVars) {
  assert.ok(effect[name], `${name}: add how it shows in the configuration to this self-test`);
  const [read, probe] = effect[name];
  await loadConfig({ env: { [name]: value } });
  assert.equal(read(await loadConfig({ env: { [name]: String(probe) } })), probe, `${name} takes effect`);
}
console.log(
  `container: Dockerfile, compose.yaml and examples/compose agree (image, /data, user ${user}, /health, ${setVars.size} variables)`,
);
console.log("compose example: renderkit.json is valid (redis mode, s3 storage) and compose.yaml runs api + 2 workers with it");
