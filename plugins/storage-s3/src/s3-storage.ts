import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { assertStorageKey, type ByteRange, type Storage, type StoredMeta, type StoredObject } from "@renderkit/core";
import { objectAddress, publicAddress } from "./addresses.js";
import { createS3Client } from "./client.js";
import { KeyChain } from "./key-chain.js";
import { META_CREATED_AT, META_EXPIRES_AT, readEpoch } from "./metadata.js";
import { type ResolvedS3Options, resolveOptions, type S3StorageOptions } from "./options.js";
import { putParams } from "./put-params.js";
import { cutToRange, servedSpan } from "./range-slice.js";
import { isMissing, S3StorageError } from "./s3-error.js";
import { putStream } from "./streamed-put.js";
import { sweepExpired } from "./sweep.js";

/** Longest presigned address SigV4 allows: 7 days. */
export const MAX_SIGNED_SECONDS = 604_800;

/** Where an S3Storage keeps objects: JSON-safe, never credentials. */
export interface S3Location {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  prefix?: string;
}

function checkRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`S3Storage: invalid byte range ${JSON.stringify(range)}`);
  }
}

/**
 * Renders in an S3 bucket (AWS or any S3-compatible service), each object keyed
 * `<prefix><key>` with its content type, storage class, `Expires` header and renderkit's
 * `expiresAt`/`createdAt` as user metadata. The SDK client is made on first use.
 */
export class S3Storage implements Storage {
  readonly name = "s3";
  // `declare`: no field is emitted, so without the option the property does not exist at all.
  /** Lasting public address (`<publicBaseUrl>/<prefix><key>`); present only with `publicBaseUrl`. */
  declare readonly publicUrl?: (key: string, expiresInSeconds: number) => Promise<string>;
  /** Deletes objects whose `expiresAt` is before `now`; present only with `sweep: true`. */
  declare readonly sweep?: (now: number) => Promise<number>;
  /** The checked options; `#` keeps the credentials out of `JSON.stringify` and `util.inspect`. */
  readonly #options: ResolvedS3Options;
  #client: S3Client | undefined;
  #closed = false;
  /** One put at a time per key (see KeyChain). */
  readonly #writes = new KeyChain();

  constructor(options: S3StorageOptions) {
    this.#options = resolveOptions(options);
    const { publicBaseUrl, bucket, prefix } = this.#options;
    // Instance properties, not methods: `storage.publicUrl === undefined` tells the core to serve the bytes itself.
    if (publicBaseUrl !== undefined) this.publicUrl = async (key) => publicAddress(publicBaseUrl, this.fullKey(key));
    if (this.#options.sweep) this.sweep = (now) => sweepExpired(this.client, bucket, prefix, now);
  }

  /** The SDK client, made on first use: for operations this class does not cover. */
  get client(): S3Client {
    if (this.#closed) throw new Error("S3Storage: used after close()");
    this.#client ??= createS3Client(this.#options);
    return this.#client;
  }

  /** Bucket key of a storage key: validated, then prefixed. */
  private fullKey(key: string): string {
    assertStorageKey(key);
    return `${this.#options.prefix}${key}`;
  }

  /** Stores `body`: a Uint8Array in one PutObject, a Readable streamed (multipart when large). */
  async put(key: string, body: Uint8Array | Readable, meta: StoredMeta): Promise<{ size: number }> {
    const readable = body instanceof Readable ? body : undefined;
    // Until its turn comes, a failing body must not crash the process; putStream reads `errored`.
    readable?.on("error", () => undefined);
    try {
      const Key = this.fullKey(key);
      const params = putParams(this.#options.bucket, Key, meta);
      if (readable)
        return await this.#writes.run(Key, () => putStream(this.client, params, readable, this.#options.partSizeBytes));
      if (!(body instanceof Uint8Array)) throw new TypeError("S3Storage: body must be a Uint8Array or a Readable");
      return await this.#writes.run(Key, () => this.putBytes(params, body));
    } catch (error) {
      // Nothing will read the body now: release its producer (a formatter, an encoder).
      readable?.destroy();
      throw error;
    }
  }

  private async putBytes(params: PutObjectCommandInput, body: Uint8Array): Promise<{ size: number }> {
    try {
      await this.client.send(new PutObjectCommand({ ...params, Body: body, ContentLength: body.byteLength }));
    } catch (error) {
      throw new S3StorageError("PutObject", this.#options.bucket, params.Key, error);
    }
    return { size: body.byteLength };
  }

  /** Reads an object or a range of it; `undefined` when missing or expired. */
  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const Key = this.fullKey(key);
    if (range) checkRange(range);
    let answer: GetObjectCommandOutput;
    try {
      const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
      answer = await this.client.send(new GetObjectCommand({ Bucket: this.#options.bucket, Key, Range }));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new S3StorageError("GetObject", this.#options.bucket, Key, error);
    }
    // On Node the SDK's body is the http IncomingMessage; a missing one is an empty object.
    const raw = answer.Body instanceof Readable ? answer.Body : Readable.from([]);
    const expiresAt = readEpoch(answer.Metadata?.[META_EXPIRES_AT]);
    if (expiresAt !== undefined && expiresAt <= Date.now()) {
      raw.destroy();
      return undefined;
    }
    // A ranged answer's Content-Length is the range's; the total size is in its Content-Range.
    const served = servedSpan(answer.ContentRange, answer.ContentLength);
    const object: StoredObject = {
      body: range ? cutToRange(raw, served, range) : raw,
      size: served.total,
      contentType: answer.ContentType ?? "application/octet-stream",
      createdAt: readEpoch(answer.Metadata?.[META_CREATED_AT]) ?? answer.LastModified?.getTime() ?? Date.now(),
    };
    if (expiresAt !== undefined) object.expiresAt = expiresAt;
    if (answer.StorageClass) object.storageClass = answer.StorageClass;
    return object;
  }

  /** Deletes an object; a missing one is fine (S3 answers 204 either way). */
  async delete(key: string): Promise<void> {
    const Key = this.fullKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.#options.bucket, Key }));
    } catch (error) {
      if (!isMissing(error)) throw new S3StorageError("DeleteObject", this.#options.bucket, Key, error);
    }
  }

  /** Presigned GET of one object, valid `expiresInSeconds` clamped to 1 s .. 7 days (the SigV4 limit). */
  async signedUrl(key: string, expiresInSeconds: number): Promise<string> {
    const Key = this.fullKey(key);
    if (typeof expiresInSeconds !== "number" || Number.isNaN(expiresInSeconds)) {
      throw new RangeError(`S3Storage: expiresInSeconds must be a number, got ${String(expiresInSeconds)}`);
    }
    const expiresIn = Math.min(MAX_SIGNED_SECONDS, Math.max(1, Math.floor(expiresInSeconds)));
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.#options.bucket, Key }), { expiresIn });
  }

  /** The object's plain, unsigned address (path style or virtual-hosted, as the client reaches it). */
  objectUrl(key: string): string {
    return objectAddress(this.#options, this.fullKey(key));
  }

  /** JSON-safe description of where objects go, kept with a render's result; never credentials. */
  location(): S3Location {
    const { bucket, region, endpoint, forcePathStyle, prefix } = this.#options;
    return { bucket, region, ...(endpoint ? { endpoint } : {}), forcePathStyle, ...(prefix ? { prefix } : {}) };
  }

  /** Destroys the SDK client (its sockets); the storage cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#client?.destroy();
    this.#client = undefined;
  }
}
