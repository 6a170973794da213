import { storageContract } from "@renderkit/core/testing";
import { afterAll, beforeAll } from "vitest";
import { startS3, type TestS3, testStorage } from "./helpers.js";

// One s3rver for the file; each contract run keeps its keys under a random folder of its own.
let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3(["contract"]);
});
afterAll(async () => {
  await s3?.stop();
});

// s3rver serves objects to anonymous GETs, so a publicBaseUrl on the bucket's path is fetchable.
storageContract({
  name: "S3Storage (sweep, publicUrl, signedUrl)",
  make: () => testStorage(s3, "contract", { sweep: true, publicBaseUrl: `${s3.endpoint}/contract` }),
});

storageContract({
  name: "S3Storage with a prefix",
  make: () => testStorage(s3, "contract", { sweep: true, prefix: "renders/", publicBaseUrl: `${s3.endpoint}/contract/` }),
});

// Without publicBaseUrl (the core serves the bytes or redirects to signedUrl) and without sweep.
storageContract({ name: "S3Storage, plain", make: () => testStorage(s3, "contract", { prefix: "plain-" }) });
