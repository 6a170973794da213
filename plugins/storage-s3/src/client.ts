import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { S3Client } from "@aws-sdk/client-s3";
import type { ResolvedS3Options } from "./options.js";

/**
 * The SDK client for these options. Every request is bounded: a connection timeout, an idle
 * socket timeout (not a total one, so a large upload on a slow link still finishes) and a
 * number of attempts, so an unreachable endpoint fails instead of hanging.
 */
export function createS3Client(options: ResolvedS3Options): S3Client {
  // The SDK's default checksums (since 3.729) are refused by several S3-compatible services
  // (aws/aws-sdk-js-v3#6810: R2, B2, older MinIO); AWS itself keeps them.
  const checksums = options.endpoint ? "WHEN_REQUIRED" : "WHEN_SUPPORTED";
  return new S3Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle,
    // Absent: the SDK's default chain (AWS_* variables, shared profiles, container and instance roles).
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts,
    requestChecksumCalculation: checksums,
    responseChecksumValidation: checksums,
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs,
      socketTimeout: options.socketTimeoutMs,
      ...(options.lookup
        ? {
            httpAgent: new HttpAgent({ keepAlive: true, lookup: options.lookup }),
            httpsAgent: new HttpsAgent({ keepAlive: true, lookup: options.lookup }),
          }
        : {}),
    },
  });
}
