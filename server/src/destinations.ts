import {
  AddressPolicy,
  type DestinationRequest,
  hostAndPort,
  type Logger,
  type RenderDestination,
  RenderError,
  type RenderOptions,
  type Storage,
  snakeName,
} from "@renderkit/core";
import { policyLookup } from "@renderkit/core/internal";
import type { S3Location as BucketLocation, S3Storage } from "@renderkit/storage-s3";
import { s3StorageOptions } from "./config-scale.js";
import type { ProjectStore } from "./projects.js";
import { refuseUnlessPublic } from "./server-options.js";
import type { RenderRecord } from "./state/records.js";
import type { Project, S3Config, ServerConfig } from "./types.js";

/** What a render stored in a project's bucket keeps in its record: the bucket as its client saw it, never credentials. */
type S3Location = { kind: "s3"; projectId: string; key: string } & BucketLocation;

const noBucket = () =>
  new RenderError("NoS3BucketConfigured", "use_s3 needs an S3 bucket configured for the project (projects[].s3)", {
    details: { option: "use_s3" },
  });

/** The option holding a side file's upload address: `html` → `s3PresignedUrlHtml`. */
const sideOption = (side: NonNullable<DestinationRequest["side"]>) =>
  `s3PresignedUrl${side.charAt(0).toUpperCase()}${side.slice(1)}`;

/** Bucket clients kept at once (each override of bucket or endpoint makes one). */
const MAX_CLIENTS = 32;
/** How long an evicted client stays open: longer than any attempt may upload with it. */
const RETIRE_MS = 15 * 60_000;

/**
 * Renders that leave the server's storage (`use_s3`, `s3_presigned_url`): the renderer's
 * destination resolver, the submit-time checks an API node runs, and how the server finds such
 * a render again for its address and for render links. One client per project bucket, reused.
 */
export class Destinations {
  /** The S3 plugin, loaded on first use: a server that never writes to a bucket does without it. */
  private s3: Promise<typeof import("@renderkit/storage-s3")> | undefined;
  private readonly buckets = new Map<string, S3Storage>();
  /** Evicted clients not closed yet. */
  private readonly retired = new Set<S3Storage>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly config: ServerConfig,
    private readonly baseUrl: string,
    private readonly logger: Logger,
  ) {}

  private s3Module(): Promise<typeof import("@renderkit/storage-s3")> {
    this.s3 ??= import("@renderkit/storage-s3");
    return this.s3;
  }

  private policy(): AddressPolicy {
    return new AddressPolicy({ allowPrivate: this.config.allowPrivateNetworks });
  }

  /**
   * Refuses at submit time what the worker could not do (400 instead of a failed render): a
   * missing bucket, and an S3 endpoint or upload address (`s3_presigned_url` and each
   * `s3_presigned_url_<side>`) the address policy does not allow, naming the option.
   */
  async check(project: Project, options: RenderOptions): Promise<void> {
    if (options.useS3 && !project.s3) throw noBucket();
    if (options.s3Endpoint !== undefined) await refuseUnlessPublic(this.config, "s3_endpoint", new URL(options.s3Endpoint));
    for (const [name, value] of Object.entries(options)) {
      if (!name.startsWith("s3PresignedUrl") || typeof value !== "string") continue;
      await refuseUnlessPublic(this.config, snakeName(name), new URL(value));
    }
  }

  /** The renderer's `destination` setting: the render's destination, or one side file's (`request.side`). */
  readonly resolve = async (request: DestinationRequest): Promise<RenderDestination | undefined> => {
    const { renderId, options, format, side } = request;
    const extension = format.extension;
    if (side !== undefined) {
      // Only the caller's own address: a project bucket (`use_s3`) takes the render alone.
      const address = options[sideOption(side)];
      return typeof address === "string" ? this.presigned(address, `${renderId}-${side}`) : undefined;
    }
    if (options.s3PresignedUrl !== undefined) {
      return { ...this.presigned(options.s3PresignedUrl, `${renderId}.${extension}`), location: { kind: "presigned" } };
    }
    if (!options.useS3) return undefined;
    const project = this.projects.byId(request.job?.projectId ?? "");
    if (!project?.s3) throw noBucket();
    const overridden = options.s3Bucket !== undefined || options.s3Endpoint !== undefined;
    const bucket: S3Config = {
      ...project.s3,
      bucket: options.s3Bucket ?? project.s3.bucket,
      region: options.s3Region ?? project.s3.region,
      endpoint: options.s3Endpoint ?? project.s3.endpoint,
    };
    const key = `${options.s3Path ?? renderId}${options.noSuffix ? "" : `.${extension}`}`;
    const { encodeKey } = await this.s3Module();
    const storage = await this.storageFor(project, bucket);
    let url = `${this.baseUrl}/renders/${encodeURIComponent(renderId)}.${extension}`;
    if (options.cdnHost !== undefined) {
      const cdn = /^https?:\/\//i.test(options.cdnHost) ? options.cdnHost : `https://${options.cdnHost}`;
      url = `${cdn.replace(/\/+$/, "")}/${encodeKey(key)}`;
    } else if (project.s3.publicBaseUrl && !overridden) {
      url = `${project.s3.publicBaseUrl.replace(/\/+$/, "")}/${encodeKey(key)}`;
    }
    const location: S3Location = { kind: "s3", projectId: project.id, key, ...storage.location() };
    return { url, key, location: { ...location }, put: (body, meta) => storage.put(key, body, meta) };
  };

  /**
   * An upload to an address the caller signed: PUT, address policy checked and pinned at
   * connection time, no redirects. Its public form is the address without its query (the
   * signature never reaches a result, a record or a webhook).
   */
  private presigned(address: string, key: string): RenderDestination {
    const target = new URL(address);
    return {
      url: `${target.origin}${target.pathname}`,
      key,
      put: async (body, meta) =>
        (await this.s3Module()).uploadToPresignedUrl(address, body, { contentType: meta.contentType }, { policy: this.policy() }),
    };
  }

  /** The storage and key of a render kept in a project's bucket; undefined for any other render. */
  async locate(record: RenderRecord): Promise<{ storage: Storage; key: string } | undefined> {
    const location = record.result?.location as Partial<S3Location> | undefined;
    if (location?.kind !== "s3" || typeof location.key !== "string" || !location.bucket) return undefined;
    const project = this.projects.byId(location.projectId ?? "");
    if (!project?.s3) return undefined;
    const bucket = { ...project.s3, bucket: location.bucket, region: location.region, endpoint: location.endpoint };
    return { storage: await this.storageFor(project, bucket), key: location.key };
  }

  /**
   * The client of one bucket, reused (at most `MAX_CLIENTS`, least recently used first out). An
   * endpoint the caller chose (`s3_endpoint`) connects only to addresses the address policy
   * allows, resolved once per client and pinned: a name cannot be rebound to an internal host
   * between the submit-time check and the upload.
   */
  private async storageFor(project: Project, bucket: S3Config): Promise<S3Storage> {
    // First, so that nothing below waits: two renders never make two clients of one bucket.
    const { S3Storage } = await this.s3Module();
    const id = JSON.stringify([project.id, bucket.bucket, bucket.region, bucket.endpoint, bucket.forcePathStyle]);
    let storage = this.buckets.get(id);
    if (storage) {
      this.buckets.delete(id);
      this.buckets.set(id, storage);
      return storage;
    }
    const chosen = bucket.endpoint !== undefined && bucket.endpoint !== project.s3?.endpoint;
    // Always the project's own credentials (overrides change the bucket, never who signs).
    const credentials = s3StorageOptions(project.s3 as S3Config);
    storage = new S3Storage({
      ...credentials,
      bucket: bucket.bucket,
      region: bucket.region,
      endpoint: bucket.endpoint,
      // The server writes its own render addresses; the bucket's public one is not used here.
      publicBaseUrl: undefined,
      ...(chosen ? { lookup: policyLookup(this.policy(), hostAndPort(new URL(bucket.endpoint as string)).port) } : {}),
    });
    this.buckets.set(id, storage);
    if (this.buckets.size > MAX_CLIENTS) {
      const [oldest, client] = this.buckets.entries().next().value as [string, S3Storage];
      this.buckets.delete(oldest);
      // A render may still be uploading with it: closed once no attempt can still hold it.
      this.retired.add(client);
      setTimeout(() => {
        this.retired.delete(client);
        void client.close().catch(() => undefined);
      }, RETIRE_MS).unref();
    }
    this.logger.debug("project bucket client created", { projectId: project.id, bucket: bucket.bucket });
    return storage;
  }

  async close(): Promise<void> {
    for (const storage of [...this.buckets.values(), ...this.retired]) await storage.close?.().catch(() => undefined);
    this.buckets.clear();
    this.retired.clear();
  }
}
