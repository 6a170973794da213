import { Readable } from "node:stream";
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
import { writableBuckets } from "../config/project-s3.js";
import { s3StorageOptions } from "../config/scale.js";
import type { Project, S3Config, ServerConfig } from "../config/types.js";
import type { ProjectStore } from "../projects/store.js";
import type { RenderRecord } from "../state/records.js";
import { refuseUnlessPublic } from "./address-checks.js";
import { endpointAllowed, renderBucket } from "./buckets.js";
import { bucketFailure, uploadFailure } from "./destination-failures.js";

/**
 * What a render stored in a project's bucket keeps in its record: the bucket as its client saw
 * it (the project's key prefix included), never credentials.
 */
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
   * Refuses at submit time what the worker could not do, or must not (400 instead of a failed
   * render): a missing bucket, a bucket or endpoint the project's config does not allow, and an
   * S3 endpoint or upload address (`s3_presigned_url` and each `s3_presigned_url_<side>`) the
   * address policy does not allow, naming the option.
   */
  async check(project: Project, options: RenderOptions): Promise<void> {
    if (options.useS3 && !project.s3) throw noBucket();
    if (options.useS3 && project.s3) {
      const { bucket, chosenEndpoint } = renderBucket(project.s3, options);
      if (chosenEndpoint) await refuseUnlessPublic(this.config, "s3_endpoint", new URL(bucket.endpoint as string));
    }
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
      const option = sideOption(side);
      const address = options[option];
      return typeof address === "string" ? this.presigned(option, address, `${renderId}-${side}`) : undefined;
    }
    if (options.s3PresignedUrl !== undefined) {
      const destination = this.presigned("s3PresignedUrl", options.s3PresignedUrl, `${renderId}.${extension}`);
      return { ...destination, location: { kind: "presigned" } };
    }
    if (!options.useS3) return undefined;
    const project = this.projects.byId(request.job?.projectId ?? "");
    if (!project?.s3) throw noBucket();
    // Checked again: the render may have been queued before the project's config changed.
    const { bucket, chosenEndpoint } = renderBucket(project.s3, options);
    const key = `${options.s3Path ?? renderId}${options.noSuffix ? "" : `.${extension}`}`;
    const { encodeKey } = await this.s3Module();
    const storage = await this.storageFor(project, bucket, chosenEndpoint);
    const overridden = options.s3Bucket !== undefined || options.s3Endpoint !== undefined;
    // Public addresses name the object as the bucket holds it: under the project's prefix.
    const objectPath = encodeKey(`${project.s3.prefix}${key}`);
    let url = `${this.baseUrl}/renders/${encodeURIComponent(renderId)}.${extension}`;
    if (options.cdnHost !== undefined) {
      const cdn = /^https?:\/\//i.test(options.cdnHost) ? options.cdnHost : `https://${options.cdnHost}`;
      url = `${cdn.replace(/\/+$/, "")}/${objectPath}`;
    } else if (project.s3.publicBaseUrl && !overridden) {
      url = `${project.s3.publicBaseUrl.replace(/\/+$/, "")}/${objectPath}`;
    }
    const location: S3Location = { kind: "s3", projectId: project.id, key, ...storage.location() };
    const attempt = { renderId, projectId: project.id, namedBucket: options.s3Bucket !== undefined, chosenEndpoint };
    return {
      url,
      key,
      location: { ...location },
      put: (body, meta) =>
        storage.put(key, body, meta).catch((error: unknown) => {
          // A body that failed while it was read is the formatter's failure, not the bucket's.
          throw body instanceof Readable && body.errored === error ? error : bucketFailure(error, attempt, this.logger);
        }),
    };
  };

  /**
   * An upload to an address the caller signed (`option`): PUT, address policy checked and pinned
   * at connection time, no redirects. Its public form is the address without its query (the
   * signature never reaches a result, a record or a webhook). A failure names the option: 400
   * when the address refused or redirected the PUT, 502 when it could not be reached.
   */
  private presigned(option: string, address: string, key: string): RenderDestination {
    const target = new URL(address);
    return {
      url: `${target.origin}${target.pathname}`,
      key,
      put: async (body, meta) => {
        const { uploadToPresignedUrl } = await this.s3Module();
        return uploadToPresignedUrl(address, body, { contentType: meta.contentType }, { policy: this.policy() }).catch(
          (error: unknown) => {
            throw uploadFailure(option, error);
          },
        );
      },
    };
  }

  /**
   * The storage and key of a render kept in a project's bucket; undefined for any other render.
   * Only a location of the record's own project, in a bucket and at an endpoint that project may
   * still write, under its prefix: a record can never lead to another project's objects.
   */
  async locate(record: RenderRecord): Promise<{ storage: Storage; key: string } | undefined> {
    const location = record.result?.location as Partial<S3Location> | undefined;
    if (location?.kind !== "s3" || typeof location.key !== "string" || !location.bucket) return undefined;
    if (location.projectId !== record.projectId) return undefined;
    const project = this.projects.byId(record.projectId);
    const s3 = project?.s3;
    if (!project || !s3) return undefined;
    const own =
      writableBuckets(s3).includes(location.bucket) &&
      endpointAllowed(s3, location.endpoint) &&
      (location.prefix ?? "") === s3.prefix;
    if (!own) return undefined;
    const bucket = { ...s3, bucket: location.bucket, region: location.region, endpoint: location.endpoint };
    const chosenEndpoint = renderBucket(s3, { s3Endpoint: location.endpoint }).chosenEndpoint;
    return { storage: await this.storageFor(project, bucket, chosenEndpoint), key: location.key };
  }

  /**
   * The client of one bucket, reused (at most `MAX_CLIENTS`, least recently used first out). An
   * endpoint the caller chose (`s3_endpoint`) connects only to addresses the address policy
   * allows, resolved once per client and pinned: a name cannot be rebound to an internal host
   * between the submit-time check and the upload.
   */
  private async storageFor(project: Project, bucket: S3Config, chosen: boolean): Promise<S3Storage> {
    // First, so that nothing below waits: two renders never make two clients of one bucket.
    const { S3Storage } = await this.s3Module();
    const own = project.s3 as NonNullable<Project["s3"]>;
    const id = JSON.stringify([project.id, bucket.bucket, bucket.region, bucket.endpoint, bucket.forcePathStyle, own.prefix]);
    let storage = this.buckets.get(id);
    if (storage) {
      this.buckets.delete(id);
      this.buckets.set(id, storage);
      return storage;
    }
    // Always the project's own credentials (overrides change the bucket, never who signs), or
    // none, so the SDK's chain signs, where the operator said so (`useServerCredentials`).
    const credentials = s3StorageOptions(own);
    storage = new S3Storage({
      ...credentials,
      bucket: bucket.bucket,
      region: bucket.region,
      endpoint: bucket.endpoint,
      // Every object written for the project, in any bucket, lies under its prefix.
      prefix: own.prefix,
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
