import type { LookupFunction } from "node:net";
import {
  AddressPolicy,
  type DestinationRequest,
  type Logger,
  type RenderDestination,
  RenderError,
  type RenderOptions,
  type Storage,
} from "@renderkit/core";
import { S3Storage, uploadToPresignedUrl } from "@renderkit/storage-s3";
import type { ProjectStore } from "./projects.js";
import type { RenderRecord } from "./state/records.js";
import type { Project, S3Config, ServerConfig } from "./types.js";

/** What a render stored in a project's bucket keeps in its record (never credentials). */
interface S3Location {
  kind: "s3";
  projectId: string;
  bucket: string;
  region?: string;
  endpoint?: string;
  key: string;
}

const noBucket = () =>
  new RenderError("NoS3BucketConfigured", "use_s3 needs an S3 bucket configured for the project (projects[].s3)", {
    details: { option: "use_s3" },
  });

const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/");

/** Bucket clients kept at once (each override of bucket or endpoint makes one). */
const MAX_CLIENTS = 32;

/** A `lookup` that resolves through the address policy (public addresses only) and pins the answer. */
function vettedLookup(policy: AddressPolicy, endpoint: URL): LookupFunction {
  const port = Number(endpoint.port || (endpoint.protocol === "https:" ? 443 : 80));
  return (hostname, options, callback) => {
    policy.resolve(hostname, port).then(
      ({ address, family }) => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)),
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 4),
    );
  };
}

/**
 * Renders that leave the server's storage (`use_s3`, `s3_presigned_url`): the renderer's
 * destination resolver, the submit-time checks an API node runs, and how the server finds such
 * a render again for its address and for render links. One client per project bucket, reused.
 */
export class Destinations {
  private readonly buckets = new Map<string, S3Storage>();

  constructor(
    private readonly projects: ProjectStore,
    private readonly config: ServerConfig,
    private readonly baseUrl: string,
    private readonly logger: Logger,
  ) {}

  private policy(): AddressPolicy {
    return new AddressPolicy({ allowPrivate: this.config.allowPrivateNetworks });
  }

  /** Refuses at submit time what the worker could not do (400 instead of a failed render). */
  async check(project: Project, options: RenderOptions): Promise<void> {
    if (options.useS3 && !project.s3) throw noBucket();
    for (const [option, value] of [
      ["s3_endpoint", options.s3Endpoint],
      ["s3_presigned_url", options.s3PresignedUrl],
    ] as const) {
      if (value === undefined) continue;
      const url = new URL(value);
      try {
        await this.policy().resolve(
          url.hostname.replace(/^\[|\]$/g, ""),
          Number(url.port || (url.protocol === "https:" ? 443 : 80)),
        );
      } catch (error) {
        throw new RenderError("InvalidOptions", `Option ${option} is refused: ${(error as Error).message}`, {
          details: { option },
        });
      }
    }
  }

  /** The renderer's `destination` setting. */
  readonly resolve = async (request: DestinationRequest): Promise<RenderDestination | undefined> => {
    const { renderId, options, format } = request;
    const extension = format.extension;
    if (options.s3PresignedUrl !== undefined) {
      const target = new URL(options.s3PresignedUrl);
      const url = `${target.origin}${target.pathname}`;
      return {
        url,
        key: `${renderId}.${extension}`,
        location: { kind: "presigned" },
        put: (body, meta) =>
          uploadToPresignedUrl(
            options.s3PresignedUrl as string,
            body,
            { contentType: meta.contentType },
            { policy: this.policy() },
          ),
      };
    }
    if (!options.useS3) return undefined;
    const projectId = typeof request.meta?.projectId === "string" ? request.meta.projectId : "";
    const project = this.projects.byId(projectId);
    if (!project?.s3) throw noBucket();
    const overridden = options.s3Bucket !== undefined || options.s3Endpoint !== undefined;
    const bucket: S3Config = {
      ...project.s3,
      bucket: options.s3Bucket ?? project.s3.bucket,
      region: options.s3Region ?? project.s3.region,
      endpoint: options.s3Endpoint ?? project.s3.endpoint,
    };
    const key = `${options.s3Path ?? renderId}${options.noSuffix ? "" : `.${extension}`}`;
    const storage = this.storageFor(project, bucket);
    let url = `${this.baseUrl}/renders/${encodeURIComponent(renderId)}.${extension}`;
    if (options.cdnHost !== undefined) {
      const cdn = /^https?:\/\//i.test(options.cdnHost) ? options.cdnHost : `https://${options.cdnHost}`;
      url = `${cdn.replace(/\/+$/, "")}/${encodeKey(key)}`;
    } else if (project.s3.publicBaseUrl && !overridden) {
      url = `${project.s3.publicBaseUrl.replace(/\/+$/, "")}/${encodeKey(key)}`;
    }
    const location: S3Location = { kind: "s3", projectId, bucket: bucket.bucket, key };
    if (bucket.region) location.region = bucket.region;
    if (bucket.endpoint) location.endpoint = bucket.endpoint;
    return { url, key, location: { ...location }, put: (body, meta) => storage.put(key, body, meta) };
  };

  /** The storage and key of a render kept in a project's bucket; undefined for any other render. */
  locate(record: RenderRecord): { storage: Storage; key: string } | undefined {
    const location = record.result?.location as Partial<S3Location> | undefined;
    if (location?.kind !== "s3" || typeof location.key !== "string" || !location.bucket) return undefined;
    const project = this.projects.byId(location.projectId ?? "");
    if (!project?.s3) return undefined;
    const bucket = { ...project.s3, bucket: location.bucket, region: location.region, endpoint: location.endpoint };
    return { storage: this.storageFor(project, bucket), key: location.key };
  }

  /**
   * The client of one bucket, reused (at most `MAX_CLIENTS`, least recently used first out). An
   * endpoint the caller chose (`s3_endpoint`) connects only to addresses the address policy
   * allows, resolved once per client and pinned: a name cannot be rebound to an internal host
   * between the submit-time check and the upload.
   */
  private storageFor(project: Project, bucket: S3Config): S3Storage {
    const id = JSON.stringify([project.id, bucket.bucket, bucket.region, bucket.endpoint, bucket.forcePathStyle]);
    let storage = this.buckets.get(id);
    if (storage) {
      this.buckets.delete(id);
      this.buckets.set(id, storage);
      return storage;
    }
    const chosen = bucket.endpoint !== undefined && bucket.endpoint !== project.s3?.endpoint;
    storage = new S3Storage({
      bucket: bucket.bucket,
      region: bucket.region,
      endpoint: bucket.endpoint,
      forcePathStyle: bucket.forcePathStyle,
      // Always the project's own credentials, read by name: the secret is not enumerable, so
      // the spread copies `bucket` is made from have lost it.
      accessKeyId: project.s3?.accessKeyId,
      secretAccessKey: project.s3?.secretAccessKey,
      ...(chosen ? { lookup: vettedLookup(this.policy(), new URL(bucket.endpoint as string)) } : {}),
    });
    this.buckets.set(id, storage);
    if (this.buckets.size > MAX_CLIENTS) {
      const [oldest, client] = this.buckets.entries().next().value as [string, S3Storage];
      this.buckets.delete(oldest);
      void client.close().catch(() => undefined);
    }
    this.logger.debug("project bucket client created", { projectId: project.id, bucket: bucket.bucket });
    return storage;
  }

  async close(): Promise<void> {
    for (const storage of this.buckets.values()) await storage.close?.().catch(() => undefined);
    this.buckets.clear();
  }
}
