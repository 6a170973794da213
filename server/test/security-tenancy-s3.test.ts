import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOSED_PORT } from "../../test/helpers/closed-port.js";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import { ConfigError, loadConfig } from "../dist/config/index.js";
import { api, listenLocal, PROJECT_A, PROJECT_B, sharedServices, startTestServer, type TestServer } from "./helpers.js";

/**
 * Issue 30, findings 1, 4, 6 and 7, as project A ("alpha") tries them against project B ("beta")
 * through the S3 options, in file mode and in Redis + S3 mode: B's bucket, B's renders in B's
 * bucket and in the server's storage, a key B reuses, names planted under `/renders/`, an
 * endpoint that would receive A's signed requests, and what a caller is told when storing fails.
 * The projects' buckets live in an s3rver of this file; each answer is checked as the attacker
 * sees it (status, code, message) and as the victim does (the bytes its address serves).
 */

type Local = Awaited<ReturnType<typeof listenLocal>>;
// biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
type Body = any;

/** Names that appear nowhere else, so a message or a listing naming them is caught. */
const BUCKET_A = "alpha-files-5c1e";
const BUCKET_B = "beta-files-9d2a";
const SHARED = "shared-files-3b7f";
const MISSING = "missing-files-0e4d";
const DOWN = "down-files-7a41";
const rateLimit = { requests: 1000, perSeconds: 60 };
const A = PROJECT_A.secretKey;
const B = PROJECT_B.secretKey;
/** A third project, whose bucket refuses its credentials. */
const PROJECT_C = {
  id: "gamma",
  secretKey: "sk_test_gamma_0123456789abcdef",
  publishableKey: "pk_test_gamma",
  webhookSecret: "whsec_gamma_0123456789abcdef",
  rateLimit,
};
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const GREEN = [0, 128, 0];

let buckets: TestS3;
let client: S3Client;
/** Pages of one colour: `/<r>-<g>-<b>/<name>`. */
let site: Local;
let receiver: Local;
/** An S3 endpoint of the caller's choosing: records what reaches it, and accepts every PUT. */
let recorder: Local;
let forbidden: Local;
let redirecting: Local;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  buckets = await startS3([BUCKET_A, BUCKET_B, SHARED]);
  cleanup.push(() => buckets.stop());
  client = buckets.client();
  cleanup.push(async () => client.destroy());
  site = await listenLocal((req) => {
    const colour = (req.url ?? "").match(/^\/(\d+)-(\d+)-(\d+)\//)?.slice(1) ?? ["0", "0", "0"];
    return { body: `<body style="margin:0;background:rgb(${colour.join(",")})"></body>` };
  });
  receiver = await listenLocal(() => ({ status: 200 }));
  recorder = await listenLocal(() => ({ status: 200 }));
  forbidden = await listenLocal(() => ({
    status: 403,
    type: "application/xml",
    body: "<Error><Code>AccessDenied</Code></Error>",
  }));
  redirecting = await listenLocal(() => ({ status: 307, body: "" }));
  for (const local of [site, receiver, recorder, forbidden, redirecting]) cleanup.push(() => local.close());
});

afterAll(async () => {
  const failures: unknown[] = [];
  for (const step of cleanup.splice(0).reverse()) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

const page = (colour: number[], name: string) => `${site.url}/${colour.join("-")}/${name}`;
/** Times the site was asked for page `name` (each render of it is one). */
const asked = (name: string) => site.requests.filter((r) => r.url.endsWith(`/${name}`)).length;

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every key in `bucket` of the projects' s3rver. */
async function keys(bucket: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key ?? "").sort();
}

/** The top-left pixel of the PNG a render address serves now (following its redirect). */
async function servedColour(renderUrl: string): Promise<number[]> {
  const response = await fetch(renderUrl);
  expect(response.status, renderUrl).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  const { data } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

/** A sync render that must succeed; its answer. */
async function rendered(server: TestServer, key: string, json: Record<string, unknown>): Promise<Body> {
  const answer = await api(server.url, "/v1/render/sync", { key, json: { width: 120, height: 100, ...json } });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** The refusal a request gets on the sync and the async route alike: status and error. */
async function refusedBoth(server: TestServer, key: string, json: Record<string, unknown>): Promise<Body[]> {
  const out: Body[] = [];
  for (const path of ["/v1/render/sync", "/v1/render/async"]) {
    const answer = await api(server.url, path, { key, json: { width: 120, height: 100, ...json } });
    out.push({ status: answer.status, error: answer.body?.error, renderId: answer.body?.renderId });
  }
  return out;
}

const refusal = (code: string, message: RegExp | string) => ({
  status: 400,
  error: { code, message: typeof message === "string" ? message : expect.stringMatching(message) },
  renderId: undefined,
});

/** An async render ended: its status record and the webhook it sent. */
async function endedWithWebhook(server: TestServer, key: string, json: Record<string, unknown>) {
  const created = await api(server.url, "/v1/render/async", {
    key,
    json: { width: 120, height: 100, webhook_url: `${receiver.url}/hook`, ...json },
  });
  expect(created.status, created.text).toBe(201);
  const id: string = created.body.renderId;
  const status = await until(async () => {
    const answer = await api(server.url, `/v1/render/${id}`, { key });
    return ["succeeded", "failed"].includes(answer.body?.status) ? answer.body : undefined;
  }, `render ${id} to end`);
  const hook = await until(() => receiver.requests.find((r) => r.body.includes(id)), "the webhook");
  return { status, webhook: hook.body };
}

const BUCKET_OF_A = () => buckets.bucket(BUCKET_A);
const BUCKET_OF_B = () => buckets.bucket(BUCKET_B);

describe.each(["file", "redis"] as const)("tenancy through the S3 options [%s]", (mode) => {
  /** Two projects as before this fix: each a bucket of its own, its own keys, nothing else configured. */
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      {
        projects: [
          { ...PROJECT_A, rateLimit, s3: BUCKET_OF_A() },
          { ...PROJECT_B, rateLimit, s3: BUCKET_OF_B() },
        ],
      },
      undefined,
      { mode },
    );
  });
  afterAll(() => server?.close());

  it("tenancy finding 1: project A cannot write into project B's bucket with s3_bucket", async () => {
    const before = await keys(BUCKET_B);
    const answers = await refusedBoth(server, A, {
      url: page(RED, "f1-into-b"),
      use_s3: true,
      s3_bucket: BUCKET_B,
      s3_path: "from-alpha",
    });
    const refused = refusal("InvalidOptions", /^Option s3_bucket names a bucket this project may not write/);
    expect(answers).toEqual([refused, refused]);
    expect(asked("f1-into-b")).toBe(0);
    expect(await keys(BUCKET_B)).toEqual(before);
  });

  it("tenancy finding 1: A cannot overwrite B's render, in B's bucket or in the server's storage (B's render id as s3_path)", async () => {
    const inBucket = await rendered(server, B, { url: page(BLUE, "f1-b-bucket"), use_s3: true });
    const onServer = await rendered(server, B, { url: page(BLUE, "f1-b-server") });
    const attacks: Record<string, unknown>[] = [
      { s3_bucket: BUCKET_B, s3_path: inBucket.renderId },
      { s3_bucket: BUCKET_B, s3_path: `beta/${inBucket.renderId}` },
    ];
    if (mode === "redis") {
      // The server's own bucket, on its own endpoint, where B's second render is `<id>.png`.
      const { s3 } = await sharedServices();
      attacks.push({ s3_bucket: "renders", s3_endpoint: s3.endpoint, s3_path: onServer.renderId });
    }
    for (const attack of attacks) {
      const answer = await api(server.url, "/v1/render/sync", {
        key: A,
        json: { url: page(RED, "f1-overwrite"), width: 120, height: 100, use_s3: true, ...attack },
      });
      expect(answer.status, `${JSON.stringify(attack)}: ${answer.text}`).toBe(400);
      expect(answer.body.error.code).toBe("InvalidOptions");
      expect(answer.body.error.message).toMatch(/^Option s3_(bucket|endpoint) names/);
    }
    expect(asked("f1-overwrite")).toBe(0);
    expect(await servedColour(inBucket.renderUrl)).toEqual(BLUE);
    expect(await servedColour(onServer.renderUrl)).toEqual(BLUE);
    // B's own render sits under B's prefix: nothing at the bucket's root another project could name.
    expect(await keys(BUCKET_B)).toContain(`beta/${inBucket.renderId}.png`);
  });

  it("tenancy finding 1: with no_suffix, A gets no lasting read of a key B reuses", async () => {
    await rendered(server, B, { url: page(BLUE, "f1-latest"), use_s3: true, s3_path: "latest", no_suffix: true });
    for (const s3_path of ["latest", "beta/latest"]) {
      const answer = await api(server.url, "/v1/render/sync", {
        key: A,
        json: { url: page(RED, "f1-read"), use_s3: true, s3_bucket: BUCKET_B, s3_path, no_suffix: true },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toEqual({
        code: "InvalidOptions",
        message: expect.stringMatching(/^Option s3_bucket names a bucket this project may not write/),
      });
    }
    expect(asked("f1-read")).toBe(0);
  });

  it("tenancy finding 6: an s3_endpoint the project's config does not allow is refused before anything is signed", async () => {
    const answers = await refusedBoth(server, A, { url: page(RED, "f6-endpoint"), use_s3: true, s3_endpoint: recorder.url });
    const refused = refusal("InvalidOptions", /^Option s3_endpoint names an endpoint this project may not use/);
    expect(answers).toEqual([refused, refused]);
    // Not one request: the project's access key id never reached the caller's endpoint.
    expect(recorder.requests).toEqual([]);
    expect(asked("f6-endpoint")).toBe(0);
  });

  it("tenancy finding 7: s3_path with no_suffix that the storage refuses is 400 at submit, before anything renders", async () => {
    for (const s3_path of ["a/b.meta.json", "x.meta.json"]) {
      const answers = await refusedBoth(server, A, { url: page(RED, "f7-key"), use_s3: true, s3_path, no_suffix: true });
      const refused = refusal(
        "InvalidOptions",
        `Option s3_path with no_suffix is the object key "${s3_path}", which the storage refuses: up to 5 parts separated by /, each of 1 to 201 of A-Z a-z 0-9 . _ - starting with a letter or digit, no \`..\`, not ending in .meta.json`,
      );
      expect(answers).toEqual([refused, refused]);
    }
    // The same path with the format's extension is a key the storage takes.
    await rendered(server, A, { url: page(RED, "f7-key-ok"), use_s3: true, s3_path: "a/b.meta" });
    expect(await keys(BUCKET_A)).toContain("alpha/a/b.meta.png");
    expect(asked("f7-key")).toBe(0);
  });

  it("tenancy finding 7: a presigned upload answered 403 is 400 InvalidOptions naming the option and the status", async () => {
    const secret = "f00dfacecafe0123456789abcdef";
    const address = (name: string) => `${forbidden.url}/bucket/${name}?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=${secret}`;
    const main = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f7-403"), width: 120, height: 100, s3_presigned_url: address("x.png") },
    });
    expect(main.status, main.text).toBe(400);
    expect(main.body.error).toEqual({
      code: "InvalidOptions",
      message: "Option s3_presigned_url: the presigned upload answered HTTP 403 (AccessDenied)",
    });
    const side = await endedWithWebhook(server, A, {
      url: page(RED, "f7-403-side"),
      save_html: true,
      s3_presigned_url_html: address("x.html"),
    });
    expect(side.status).toMatchObject({
      status: "failed",
      reason: "Option s3_presigned_url_html: the presigned upload answered HTTP 403 (AccessDenied)",
    });
    for (const text of [main.text, JSON.stringify(side.status), side.webhook]) {
      for (const leak of [secret, "AKIDEXAMPLE", "X-Amz-"]) expect(text).not.toContain(leak);
    }
  });

  it("tenancy finding 7: a presigned upload answered with a redirect is 400 InvalidOptions; the redirect is not followed", async () => {
    const before = redirecting.requests.length;
    const answer = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f7-307"), width: 120, height: 100, s3_presigned_url: `${redirecting.url}/bucket/x.png?sig=1` },
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.error).toEqual({
      code: "InvalidOptions",
      message:
        "Option s3_presigned_url: the upload address answered HTTP 307, a redirect; a presigned address must take the PUT itself",
    });
    expect(redirecting.requests.length - before).toBe(1);
  });

  it("tenancy finding 7: a presigned address that refuses the connection is 502 DestinationUnavailable, not retried", async () => {
    const address = `http://127.0.0.1:${CLOSED_PORT}/bucket/x.png?X-Amz-Signature=abc`;
    const before = asked("f7-refused");
    const answer = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f7-refused"), width: 120, height: 100, s3_presigned_url: address },
    });
    expect(answer.status, answer.text).toBe(502);
    expect(answer.body.error).toEqual({
      code: "DestinationUnavailable",
      message: "Option s3_presigned_url: the presigned upload to 127.0.0.1 failed: ECONNREFUSED",
    });
    // One render of the page: the upload failing again would not make a second attempt succeed.
    expect(asked("f7-refused") - before).toBe(1);
  });

  it("tenancy finding 1: a project s3 block without keys of its own is refused at config load unless useServerCredentials", async () => {
    const { accessKeyId: _id, secretAccessKey: _secret, ...keyless } = BUCKET_OF_A();
    const load = (s3: Record<string, unknown>) =>
      loadConfig({ env: {}, overrides: { projects: [{ ...PROJECT_A, s3 }] } as never });
    await expect(load(keyless)).rejects.toThrow(ConfigError);
    await expect(load(keyless)).rejects.toThrow(
      "projects[0].s3 needs the project's own accessKeyId and secretAccessKey; to sign this project's bucket with the server's credentials (AWS_* variables, profiles, instance roles) instead, set useServerCredentials: true",
    );
    await expect(load({ ...BUCKET_OF_A(), useServerCredentials: true })).rejects.toThrow(
      "projects[0].s3 has both accessKeyId and useServerCredentials",
    );
    // Said in config: the server's credentials (here AWS_* variables) sign the project's bucket.
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = buckets.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = buckets.secretAccessKey;
    const trusted = await startTestServer(
      { projects: [{ ...PROJECT_A, rateLimit, s3: { ...keyless, useServerCredentials: true } }] },
      undefined,
      { mode },
    );
    try {
      const answer = await rendered(trusted, A, { url: page(RED, "f1-server-keys"), use_s3: true, s3_path: "server-keys" });
      expect(await servedColour(answer.renderUrl)).toEqual(RED);
      expect(await keys(BUCKET_A)).toContain("alpha/server-keys.png");
    } finally {
      await trusted.close();
      for (const [name, value] of [
        ["AWS_ACCESS_KEY_ID", saved.id],
        ["AWS_SECRET_ACCESS_KEY", saved.secret],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("tenancy finding 1: config load refuses two projects whose prefixes overlap in a bucket both can write, and the server's bucket with no prefix", async () => {
    const load = (projects: unknown[], storage?: unknown) =>
      loadConfig({ env: {}, overrides: { projects, ...(storage ? { storage } : {}) } as never });
    const a = (s3: Record<string, unknown>) => ({ ...PROJECT_A, s3: { ...BUCKET_OF_A(), ...s3 } });
    const b = (s3: Record<string, unknown>) => ({ ...PROJECT_B, s3: { ...BUCKET_OF_B(), ...s3 } });
    await expect(
      load([a({ allowedBuckets: [SHARED], prefix: "files/" }), b({ allowedBuckets: [SHARED], prefix: "files/beta/" })]),
    ).rejects.toThrow(
      `projects[1].s3.prefix "files/beta/" and projects[0].s3.prefix "files/" overlap, and both projects can write bucket "${SHARED}"`,
    );
    await expect(load([a({ prefix: "" }), b({ allowedBuckets: [BUCKET_A] })])).rejects.toThrow(
      `projects[1].s3.prefix "beta/" and projects[0].s3.prefix "" overlap, and both projects can write bucket "${BUCKET_A}"`,
    );
    await expect(load([a({ prefix: "" })], { kind: "s3", ...BUCKET_OF_A() })).rejects.toThrow(
      `projects[0].s3.prefix is "" but project alpha can write the server's storage bucket "${BUCKET_A}"`,
    );
    await expect(load([a({ prefix: "tenant-a" })])).rejects.toThrow(/^projects\[0\]\.s3\.prefix must be "" or up to 4 folders/);
    await expect(load([a({ allowedEndpoints: [`${recorder.url}/bucket`] })])).rejects.toThrow(
      "projects[0].s3.allowedEndpoints[0] must be an origin such as https://s3.example.com, without a path",
    );
    // Apart, they load: the default prefixes (`alpha/`, `beta/`) in a shared bucket, an empty one alone.
    const config = await load([a({ allowedBuckets: [SHARED] }), b({ allowedBuckets: [SHARED] })]);
    expect(config.projects.map((p) => p.s3?.prefix)).toEqual(["alpha/", "beta/"]);
    expect((await load([a({ prefix: "" }), b({})])).projects[0]?.s3?.prefix).toBe("");
  });
});

describe.each(["file", "redis"] as const)("what the operator allows [%s]", (mode) => {
  /** A and B may both write SHARED; A may name MISSING and the recorder; C's keys are refused. */
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      {
        projects: [
          {
            ...PROJECT_A,
            rateLimit,
            s3: { ...BUCKET_OF_A(), allowedBuckets: [SHARED, MISSING], allowedEndpoints: [recorder.url] },
          },
          { ...PROJECT_B, rateLimit, s3: { ...BUCKET_OF_B(), allowedBuckets: [SHARED] } },
          { ...PROJECT_C, s3: { ...buckets.bucket(BUCKET_A), accessKeyId: "NOT-A-KEY", secretAccessKey: "nope" } },
        ],
      },
      undefined,
      { mode },
    );
  });
  afterAll(() => server?.close());

  it("tenancy finding 1: in a bucket both may write, each project's keys stay under its own prefix; A keeps reading its own render", async () => {
    const tag = `${mode}-latest`;
    const mine = await rendered(server, A, {
      url: page(RED, "f1-shared-a"),
      use_s3: true,
      s3_bucket: SHARED,
      s3_path: tag,
      no_suffix: true,
    });
    await rendered(server, B, { url: page(BLUE, "f1-shared-b"), use_s3: true, s3_bucket: SHARED, s3_path: tag, no_suffix: true });
    const theirs = await rendered(server, B, {
      url: page(GREEN, "f1-shared-b2"),
      use_s3: true,
      s3_bucket: SHARED,
      s3_path: tag,
      no_suffix: true,
    });
    expect((await keys(SHARED)).filter((k) => k.endsWith(tag))).toEqual([`alpha/${tag}`, `beta/${tag}`]);
    expect(await servedColour(mine.renderUrl)).toEqual(RED);
    expect(await servedColour(theirs.renderUrl)).toEqual(GREEN);
    // Out of its prefix by `..`: the storage's key rule refuses it at submit.
    const up = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f1-up"), use_s3: true, s3_bucket: SHARED, s3_path: `../beta/${tag}`, no_suffix: true },
    });
    expect(up.status, up.text).toBe(400);
    expect(up.body.error.message).toMatch(/^Option s3_path with no_suffix is the object key "\.\.\/beta\//);
  });

  it("tenancy finding 6: an endpoint the config allows takes the upload under the project's prefix; a path on it is refused", async () => {
    const before = recorder.requests.length;
    const answer = await rendered(server, A, {
      url: page(RED, "f6-allowed"),
      use_s3: true,
      s3_endpoint: recorder.url,
      s3_path: "via",
    });
    const puts = recorder.requests.slice(before);
    expect(puts.map((r) => r.url.split("?")[0])).toEqual([`/${BUCKET_A}/alpha/via.png`]);
    expect(answer.renderUrl).toBe(`${server.url}/renders/${answer.renderId}.png`);
    const pathed = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f6-path"), use_s3: true, s3_endpoint: `${recorder.url}/${BUCKET_B}` },
    });
    expect(pathed.status, pathed.text).toBe(400);
    expect(pathed.body.error.message).toMatch(/^Option s3_endpoint names an endpoint this project may not use/);
    expect(recorder.requests.length - before).toBe(1);
  });

  it("tenancy finding 7: a bucket that does not exist, or refuses the project's credentials, is 400 NoS3BucketConfigured naming the option, no host", async () => {
    const missing = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: page(RED, "f7-missing"), width: 120, height: 100, use_s3: true, s3_bucket: MISSING },
    });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.error).toEqual({
      code: "NoS3BucketConfigured",
      message: "Option s3_bucket names a bucket that does not exist or refuses the project's credentials (NoSuchBucket)",
    });
    const refused = await endedWithWebhook(server, PROJECT_C.secretKey, { url: page(RED, "f7-refused-keys"), use_s3: true });
    expect(refused.status).toMatchObject({
      status: "failed",
      reason: "Option use_s3: the project's bucket does not exist or refuses the project's credentials (InvalidAccessKeyId)",
    });
    const messages = [missing.body.error.message, refused.status.reason, JSON.parse(refused.webhook).error.message];
    expect(messages[2]).toBe(messages[1]);
    for (const text of messages) {
      for (const leak of ["127.0.0.1", new URL(buckets.endpoint).port, BUCKET_A, MISSING, "NOT-A-KEY"]) {
        expect(text).not.toContain(leak);
      }
    }
  });
});

describe.each(["file", "redis"] as const)("a name planted under /renders/ [%s]", (mode) => {
  /** The operator gives A the server's own storage bucket (the shared s3rver's `renders`) as its bucket. */
  let server: TestServer;
  beforeAll(async () => {
    const { s3 } = await sharedServices();
    const storage = { kind: "s3", ...s3.bucket("renders") };
    server = await startTestServer(
      {
        storage,
        projects: [
          { ...PROJECT_A, rateLimit, s3: s3.bucket("renders") },
          { ...PROJECT_B, rateLimit },
        ],
      },
      undefined,
      { mode },
    );
  });
  afterAll(() => server?.close());

  it("tenancy finding 1: what A writes in the server's bucket is never served under /renders/, nor does it replace B's render", async () => {
    const victim = await rendered(server, B, { url: page(BLUE, "f1-victim") });
    const name = `planted-${mode}`;
    await rendered(server, A, { url: page(RED, "f1-plant"), use_s3: true, s3_path: name });
    await rendered(server, A, { url: page(RED, "f1-plant-over"), use_s3: true, s3_path: victim.renderId });
    const planted = await fetch(`${server.url}/renders/${name}.png`, { redirect: "manual" });
    await planted.arrayBuffer();
    expect(planted.status).toBe(404);
    expect(await servedColour(victim.renderUrl)).toEqual(BLUE);
  });
});

describe.each(["file", "redis"] as const)("storage failures name nothing internal [%s]", (mode) => {
  /** An endpoint where nothing listens: the bucket is down. */
  const down = { bucket: DOWN, endpoint: `http://127.0.0.1:${CLOSED_PORT}`, region: "us-east-1", forcePathStyle: true };
  const keysOf = () => ({ accessKeyId: buckets.accessKeyId, secretAccessKey: buckets.secretAccessKey });
  const GENERIC =
    /^The render could not be stored: the storage failed \(the server log has the details of render [0-9a-f-]+(_s)?\)$/;

  /** The messages a caller reads: the sync answer's, the status `reason`, the webhook's. */
  const expectNoLeak = (texts: string[]) => {
    expect(texts.every((text) => text.length > 0)).toBe(true);
    for (const text of texts) {
      for (const leak of [DOWN, "127.0.0.1", String(CLOSED_PORT), "ECONNREFUSED", "attempts"]) expect(text).not.toContain(leak);
    }
  };

  it("tenancy finding 4: with the project's bucket down, the sync answer, the status reason and the webhook are generic", async () => {
    const server = await startTestServer({ projects: [{ ...PROJECT_A, rateLimit, s3: { ...down, ...keysOf() } }] }, undefined, {
      mode,
    });
    try {
      const sync = await api(server.url, "/v1/render/sync", {
        key: A,
        json: { url: page(RED, "f4-project"), width: 120, height: 100, use_s3: true },
      });
      expect(sync.status, sync.text).toBe(500);
      expect(sync.body).toEqual({
        error: { code: "EngineResponseNotOkError", message: expect.stringMatching(GENERIC) },
        requestId: expect.any(String),
      });
      const ended = await endedWithWebhook(server, A, { url: page(RED, "f4-project-async"), use_s3: true });
      expect(ended.status).toMatchObject({ status: "failed", reason: expect.stringMatching(GENERIC) });
      expectNoLeak([sync.body.error.message, ended.status.reason, JSON.parse(ended.webhook).error.message]);
    } finally {
      await server.close();
    }
  });

  it("tenancy finding 4: with the server's storage down, the sync answer, the status reason and the webhook are generic", async () => {
    const server = await startTestServer({ storage: { kind: "s3", ...down, ...keysOf() } }, undefined, { mode });
    try {
      const sync = await api(server.url, "/v1/render/sync", {
        key: A,
        json: { url: page(RED, "f4-server"), width: 120, height: 100 },
      });
      expect(sync.status, sync.text).toBe(500);
      expect(sync.body.error).toEqual({ code: "EngineResponseNotOkError", message: expect.stringMatching(GENERIC) });
      const ended = await endedWithWebhook(server, A, { url: page(RED, "f4-server-async") });
      expect(ended.status).toMatchObject({ status: "failed", reason: expect.stringMatching(GENERIC) });
      expectNoLeak([sync.body.error.message, ended.status.reason, JSON.parse(ended.webhook).error.message]);
    } finally {
      await server.close();
    }
  });
});
