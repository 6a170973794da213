import { S3Storage, type S3StorageOptions, s3Storage } from "@renderkit/storage-s3";
import { describe, expect, it } from "vitest";

const make = (options: Partial<S3StorageOptions>) => () => new S3Storage({ bucket: "renders", ...options } as S3StorageOptions);

describe("S3Storage options", () => {
  it.each([
    [{ bucket: undefined }, TypeError, /bucket must be a non-empty string/],
    [{ bucket: "" }, TypeError, /bucket must be a non-empty string/],
    [{ bucket: "a/b" }, TypeError, /bucket is not a bucket name/],
    [{ region: "eu west" }, TypeError, /region is not a region name/],
    [{ endpoint: "minio:9000" }, TypeError, /endpoint must be an http or https address/],
    [{ endpoint: "not a url" }, TypeError, /endpoint is not a valid address/],
    [{ endpoint: "http://minio:9000/?x=1" }, TypeError, /endpoint must not have a query/],
    [{ endpoint: "http://user:pw@minio:9000" }, TypeError, /endpoint must not carry credentials/],
    [{ publicBaseUrl: "ftp://cdn.example.com" }, TypeError, /publicBaseUrl must be an http or https address/],
    [{ forcePathStyle: "yes" as never }, TypeError, /forcePathStyle must be a boolean/],
    [{ sweep: 1 as never }, TypeError, /sweep must be a boolean/],
    [{ accessKeyId: "AKIA" }, TypeError, /secretAccessKey is missing/],
    [{ secretAccessKey: "s" }, TypeError, /accessKeyId is missing/],
    [{ sessionToken: "t" }, TypeError, /sessionToken needs accessKeyId and secretAccessKey/],
    [{ prefix: "/abs/" }, TypeError, /prefix must be relative/],
    [{ prefix: "a//b/" }, TypeError, /prefix must be relative/],
    [{ prefix: "a/../b/" }, TypeError, /prefix must be relative/],
    [{ prefix: "a\nb/" }, TypeError, /prefix must not contain control characters/],
    [{ partSizeBytes: 4 * 1024 * 1024 }, RangeError, /partSizeBytes must be an integer from 5242880/],
    [{ partSizeBytes: 6_000_000.5 }, RangeError, /partSizeBytes/],
    [{ maxAttempts: 0 }, RangeError, /maxAttempts must be an integer from 1 to 10/],
    [{ connectionTimeoutMs: -1 }, RangeError, /connectionTimeoutMs/],
    [{ socketTimeoutMs: Number.NaN }, RangeError, /socketTimeoutMs/],
  ] as const)("refuses %j", (options, kind, message) => {
    expect(make(options as Partial<S3StorageOptions>)).toThrow(kind);
    expect(make(options as Partial<S3StorageOptions>)).toThrow(message);
  });

  it("the plugin factory checks options when called and carries the package name", () => {
    expect(() => s3Storage({ bucket: "renders", partSizeBytes: 1 })).toThrow(/partSizeBytes/);
    expect(() => s3Storage({} as S3StorageOptions)).toThrow(/bucket/);
    expect(s3Storage({ bucket: "renders" }).name).toBe("@renderkit/storage-s3");
  });

  it("accepts a prefix that is a name prefix rather than a folder", () => {
    expect(new S3Storage({ bucket: "renders", prefix: "tenant-a-" }).objectUrl("1.png")).toBe(
      "https://renders.s3.us-east-1.amazonaws.com/tenant-a-1.png",
    );
  });
});

describe("S3Storage.objectUrl", () => {
  const url = (options: Partial<S3StorageOptions>, key = "r1.png") => make(options)().objectUrl(key);

  it("AWS: virtual-hosted in the bucket's region", () => {
    expect(url({ region: "eu-west-3" })).toBe("https://renders.s3.eu-west-3.amazonaws.com/r1.png");
    expect(url({ region: "cn-north-1" })).toBe("https://renders.s3.cn-north-1.amazonaws.com.cn/r1.png");
    expect(url({ region: "eu-west-3", prefix: "shots/" }, "a/b.pdf")).toBe(
      "https://renders.s3.eu-west-3.amazonaws.com/shots/a/b.pdf",
    );
  });

  it("AWS: path style when asked, or when the bucket cannot be a host label (dots break the TLS certificate)", () => {
    expect(url({ region: "eu-west-3", forcePathStyle: true })).toBe("https://s3.eu-west-3.amazonaws.com/renders/r1.png");
    expect(url({ bucket: "renders.example.com", region: "us-east-1" })).toBe(
      "https://s3.us-east-1.amazonaws.com/renders.example.com/r1.png",
    );
  });

  it("custom endpoint: path style when asked or on an IP address, virtual-hosted otherwise", () => {
    expect(url({ endpoint: "http://minio.local:9000/", forcePathStyle: true })).toBe("http://minio.local:9000/renders/r1.png");
    expect(url({ endpoint: "http://10.0.0.5:9000" })).toBe("http://10.0.0.5:9000/renders/r1.png");
    expect(url({ endpoint: "https://acc.r2.cloudflarestorage.com" })).toBe("https://renders.acc.r2.cloudflarestorage.com/r1.png");
  });

  it("encodes path segments and refuses invalid keys", () => {
    expect(url({ prefix: "a b/ü/" })).toBe("https://renders.s3.us-east-1.amazonaws.com/a%20b/%C3%BC/r1.png");
    expect(() => url({}, "../etc")).toThrow(/Invalid storage key/);
  });
});
