import type { Readable } from "node:stream";

/** What `Storage.put` records beside the bytes. */
export interface StoredMeta {
  /** MIME type served with the object. */
  contentType: string;
  /** When the object stops being served (epoch ms). Absent: kept until deleted. */
  expiresAt?: number;
  /** Storage tier for object stores (S3 `StorageClass`, e.g. `STANDARD_IA`); other storages ignore it. */
  storageClass?: string;
}

/** An object read back from storage. */
export interface StoredObject extends StoredMeta {
  /** Bytes of the object, or of the requested range. */
  body: Readable;
  /** Total size of the object in bytes (not of the range). */
  size: number;
  /** Creation time (epoch ms). */
  createdAt: number;
}

/** Inclusive byte range, as in an HTTP `Range` header. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where renders are kept. Keys are `/`-separated relative paths made by the core
 * (`<renderId>.<ext>`); implementations must refuse anything else.
 */
export interface Storage {
  /** Short name for logs (`fs`, `s3`). */
  readonly name: string;
  /** Stores `body` under `key`, replacing any previous object. Resolves with the stored size. */
  put(key: string, body: Uint8Array | Readable, meta: StoredMeta): Promise<{ size: number }>;
  /** Reads an object (or a range of it); `undefined` when missing or expired. */
  get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  /** Deletes an object; deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Lasting address a client can fetch directly (a public bucket, a CDN), used as the render's
   * `renderUrl`; absent when the server must hand the object out itself.
   */
  publicUrl?(key: string, expiresInSeconds: number): Promise<string>;
  /**
   * Short-lived signed address of one object (an S3 presigned GET; at most 7 days): the server
   * answers a render's address with a redirect to a fresh one instead of streaming the bytes.
   */
  signedUrl?(key: string, expiresInSeconds: number): Promise<string>;
  /** Local file path of an object, for storages on this machine (library users read it directly). */
  localPath?(key: string): string | undefined;
  /** Deletes every object whose `expiresAt` is before `now`; resolves with how many were removed. */
  sweep?(now: number): Promise<number>;
  /** Releases clients and handles. */
  close?(): Promise<void>;
}
