import { definePlugin, STORAGE } from "@renderkit/core";
import { resolveOptions, type S3StorageOptions } from "./options.js";
import { S3Storage } from "./s3-storage.js";

/**
 * Stores the renderer's renders in an S3 bucket. Options are checked when the factory is
 * called; the SDK client is made on the storage's first request, so the factory is cheap.
 */
export const s3Storage = definePlugin((options: S3StorageOptions) => {
  resolveOptions(options);
  return {
    name: "@renderkit/storage-s3",
    register({ provide }) {
      provide(STORAGE, new S3Storage(options));
    },
  };
});
