/** A project as the server uses it: never holds the secret key in plain text, only its hash. */
export interface Project {
  id: string;
  name: string;
  /** SHA-256 (hex) of the secret key; lookups hash the presented key and compare in constant time. */
  secretKeyHash: string;
  /** Public key that names the project in render links. */
  publishableKey: string;
  /** Signs webhooks (differs from the secret key). */
  webhookSecret: string;
  /**
   * Key that render-link tokens are checked with (the secret key itself: clients sign with it).
   * Absent when the operator gave only `secretKeyHash`; then only tokenless links can work.
   */
  linkSigningKey?: string;
  enabled: boolean;
  rateLimit: { requests: number; perSeconds: number };
  /** Formats the project may use; absent: all installed formats. */
  formats?: string[];
  /** Whether `/v1/{publishableKey}/{format}?…` works without a token. Default false. */
  allowTokenless: boolean;
  /**
   * Accept render-link tokens made the old way: an HMAC-SHA256 of the query alone (as the
   * `urlbox` npm client signs) or any HMAC-SHA1. Such a token does not cover the format, so its
   * link can be replayed in another format (narrow that with `linkFormats`). Absent: false.
   */
  legacyLinkTokens?: boolean;
  /** Formats render links of this project may produce, signed or tokenless; absent: all the project's formats. */
  linkFormats?: string[];
  /** When set, signed render links must carry `expires` at most this many seconds ahead. */
  linkMaxAgeSeconds?: number;
  /** The project's own bucket (`use_s3`); `secretAccessKey` is not enumerable. */
  s3?: ProjectS3Config;
}

/** An S3-compatible bucket and how to reach it. Absent credentials: `AWS_*` and the SDK's defaults. */
export interface S3Config {
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Public or CDN address of the bucket: render addresses become `<publicBaseUrl>/<key>`. */
  publicBaseUrl?: string;
}

/**
 * A project's bucket (`projects[].s3`) and what its callers may name (the tenancy rules of
 * docs/security.md): the buckets and endpoints they may pick, and the key prefix every object
 * renderkit writes for the project lives under, in any bucket.
 */
export interface ProjectS3Config extends S3Config {
  /** Key prefix of every object written for the project: `""` or folders ending in `/`. Default `<projectId>/`. */
  prefix: string;
  /** Buckets besides `bucket` that `s3_bucket` may name. Default none. */
  allowedBuckets?: string[];
  /** Origins (`https://host[:port]`) that `s3_endpoint` may name besides `endpoint`. Default none. */
  allowedEndpoints?: string[];
  /**
   * Sign with the server's credentials (`AWS_*`, profiles, instance roles) instead of the
   * project's own `accessKeyId`/`secretAccessKey`. Default false: a block without keys is refused.
   */
  useServerCredentials?: boolean;
}

/** Where renders are kept: files under `<dataDir>/renders`, or a server-wide S3 bucket. */
export type StorageConfig = { kind: "fs" } | ({ kind: "s3" } & S3Config);

/** Redis shared by API and worker processes (queue, records, limits, webhooks). */
export interface RedisConfig {
  url: string;
  /** Prefix of every key renderkit writes. Default `renderkit`. */
  prefix: string;
  /** How long a worker's hold on a render lasts without renewal; a dead worker's renders retry after it. Default 30 000. */
  lockDurationMs: number;
  /** How often workers look for renders whose worker died. Default 30 000. */
  stalledIntervalMs: number;
}

/** A third-party plugin: a module specifier, or one with the options its factory is called with. */
export type PluginEntry = string | { module: string; options?: Record<string, unknown> };

/** The operator's configuration (JSON file); every field optional with a documented default. */
export interface ServerConfig {
  port: number;
  host: string;
  /** Public base address; default `http://<host>:<port>`. */
  baseUrl?: string;
  dataDir: string;
  allowPrivateNetworks: boolean | string[];
  /** Projects from the config file; when empty the data directory's projects are used. */
  projects: ProjectConfig[];
  /** Renders at once. Default 2. */
  concurrency: number;
  /** Waiting renders beyond which requests get 503. Default 100. */
  maxQueued: number;
  /**
   * Renders one project may have waiting or running at once; more get 429. Default: half of
   * `maxQueued` when the server has more than one project, else `maxQueued`.
   */
  maxQueuedPerProject?: number;
  /**
   * Reset pages each engine keeps for the next render of the same project and page settings; 0
   * turns page reuse off (a new browser context per render). Default: `concurrency`.
   */
  reusePages?: number;
  /**
   * Launch the default engine's browser as the server starts (roles that render), so the first
   * render does not wait for it. Default true.
   */
  warmup: boolean;
  /** Largest request body in bytes. Default 6 MiB (html may be 5 MiB). */
  maxBodyBytes: number;
  /** Default and maximum of `redirect_after` in seconds. Default 95 and 95. */
  redirectAfter: number;
  maxRedirectAfter: number;
  /** Lifetime of renders in days. Default 30. */
  renderTtlDays: number;
  /** Seconds SIGTERM waits for running renders. Default 30. */
  drainSeconds: number;
  /**
   * What one render's page may take from the network: bytes received in all (default 200 MiB;
   * past it the render fails with 400 `HTMLProcessError`) and connections open at once (default
   * 256; more wait for a slot).
   */
  egress: { maxBytes: number; maxConnections: number };
  /** Default engine name. */
  engine?: string;
  /** Default rate limit of projects that set none. Default 120 per 60 s. */
  rateLimit: { requests: number; perSeconds: number };
  webhooks: { timeoutMs: number; scheduleMs?: number[] };
  /**
   * Filter lists of the `block_ads` option (file paths or http(s) addresses, downloads cached
   * under `<dataDir>/adblock`) and seconds between downloads. Default EasyList and EasyPrivacy, daily.
   */
  adblock: { lists: string[]; refreshSeconds: number };
  logLevel: string;
  /** Redis for API and worker nodes; absent: one process with file queue and records. */
  redis?: RedisConfig;
  /** Where renders are kept. Default `{ kind: "fs" }`. */
  storage: StorageConfig;
  /** Third-party plugins loaded at start (package names or paths). */
  plugins: PluginEntry[];
  /** `/metrics` in Prometheus text format. Default `{ enabled: false }`. */
  metrics: MetricsConfig;
}

/** `/metrics`: off by default; with `token`, scrapes need `Authorization: Bearer <token>`. */
export interface MetricsConfig {
  enabled: boolean;
  /** Not enumerable (kept out of logs and `JSON.stringify`). */
  token?: string;
}

/** A project as written in the config file. */
export interface ProjectConfig {
  id: string;
  name?: string;
  secretKey?: string;
  secretKeyHash?: string;
  publishableKey: string;
  webhookSecret: string;
  enabled?: boolean;
  rateLimit?: { requests: number; perSeconds: number };
  formats?: string[];
  allowTokenless?: boolean;
  /** As `Project.legacyLinkTokens`. Default false. */
  legacyLinkTokens?: boolean;
  /** As `Project.linkFormats`. Default: all formats. */
  linkFormats?: string[];
  /** As `Project.linkMaxAgeSeconds`. Default: signed links need no `expires`. */
  linkMaxAgeSeconds?: number;
  s3?: ProjectS3Config;
}
