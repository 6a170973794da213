import { type ErrorCode, formatOnly, num, parseOptions, snakeName } from "@renderkit/core";
import { CORE_OPTIONS, camelize, PDF_FORMAT_OPTIONS } from "@renderkit/core/internal";
import { describe, expect, it } from "vitest";
import { checkObjectKey, checkStorageOptions } from "../dist/options/catalogue-storage.js";
import { checkCombinations } from "../dist/options/combinations.js";
import { ignoredForFormat, mergeOptionTables } from "../dist/options/format-only.js";

/** A format plugin's own options, as a third-party image plugin would declare them. */
const IMAGE_LIKE = {
  quality: num("Quality.", {
    min: 1,
    max: 100,
    integer: true,
    default: 80,
    only: { formats: ["jpg"], why: "sets the quality of lossy images", otherwise: "ignore" },
  }),
  ...formatOnly(
    { thumbWidth: num("Output width.", { min: 1, max: 100 }) },
    { formats: ["png", "jpg"], why: "resizes images only ({formats})" },
  ),
};
const TABLE = mergeOptionTables(CORE_OPTIONS, [
  { name: "pdf", options: PDF_FORMAT_OPTIONS },
  { name: "image", options: IMAGE_LIKE },
]);
// `formatSynonyms` as the formatter registry makes them from `FormatSpec.aliases`.
const ctx = { table: TABLE, formats: ["png", "jpg", "pdf", "md"], formatSynonyms: { jpeg: "jpg", markdown: "md" } };
const parse = (input: Record<string, unknown>) => parseOptions(input, ctx);
const URL_IN = { url: "https://example.com/" };

function failure(input: Record<string, unknown>): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
  try {
    parse(input);
  } catch (error) {
    return error as { code: ErrorCode; message: string };
  }
  throw new Error(`parseOptions accepted ${JSON.stringify(input)}`);
}

describe("parseOptions", () => {
  it("applies defaults", () => {
    const { options, ignored } = parse(URL_IN);
    expect(options).toMatchObject({ format: "png", width: 1280, height: 1024, fullPage: false, deviceScaleFactor: 1 });
    expect(options.waitUntil).toBe("loaded");
    expect(ignored).toEqual([]);
  });

  it("accepts camelCase, snake_case and kebab-case names", () => {
    const { options } = parse({ ...URL_IN, full_page: true, waitUntil: "domloaded", "device-scale-factor": 2, fail_on_4xx: 1 });
    expect(options).toMatchObject({ fullPage: true, waitUntil: "domloaded", deviceScaleFactor: 2, failOn4xx: true });
  });

  it("coerces numeric and boolean strings (form bodies)", () => {
    const { options } = parse({ ...URL_IN, width: "800", delay: " 250 ", dpr: "1.5", full_page: "true", dark_mode: "1" });
    expect(options).toMatchObject({ width: 800, delay: 250, deviceScaleFactor: 1.5, fullPage: true, darkMode: true });
    for (const [raw, value] of [
      ["false", false],
      ["0", false],
      [0, false],
      ["TRUE", true],
      [1, true],
      [true, true],
    ] as const) {
      expect(parse({ ...URL_IN, full_page: raw }).options.fullPage).toBe(value);
    }
  });

  it.each([
    [{ width: 99 }, "width"],
    [{ width: 4001 }, "width"],
    [{ width: "wide" }, "width"],
    [{ width: 800.5 }, "width"],
    [{ device_scale_factor: 5 }, "device_scale_factor"],
    [{ dpr: 0 }, "device_scale_factor"],
    [{ timeout: 100 }, "timeout"],
    [{ wait_timeout: 100_000 }, "wait_timeout"],
    [{ quality: "80.5" }, "quality"],
    [{ full_page: "yes" }, "full_page"],
    [{ wait_until: "whenever" }, "wait_until"],
    [{ pdf_page_size: "B5" }, "pdf_page_size"],
    [{ pdf_margin_top: "2 furlongs" }, "pdf_margin_top"],
    [{ selector: "a".repeat(1025) }, "selector"],
    [{ click: Array.from({ length: 21 }, (_, i) => `#b${i}`) }, "click"],
    [{ width: ["800", "900"] }, "width"],
    [{ fail_on_5xx: "maybe" }, "fail_on_5xx"],
  ])("refuses %j with InvalidOptions naming %s", (input, option) => {
    const error = failure({ ...URL_IN, ...input });
    expect(error.code).toBe("InvalidOptions");
    expect(error.message).toContain(option);
    expect(error.details).toEqual({ option });
  });

  it("accepts the bounds themselves", () => {
    expect(parse({ ...URL_IN, width: 100, height: 4000, dpr: 4, quality: 1 }).options).toMatchObject({
      width: 100,
      height: 4000,
      deviceScaleFactor: 4,
      quality: 1,
    });
  });

  it("reports unknown and planned options as ignored, as the client spelled them", () => {
    const { options, ignored } = parse({
      ...URL_IN,
      colour: "red",
      some_future_flag: 1,
      redirect_after: 5,
      webhookUrl: "https://hooks.example/x",
    });
    expect(ignored).toEqual(["colour", "some_future_flag", "redirect_after", "webhookUrl"]);
    expect(options).not.toHaveProperty("redirectAfter");
    expect(options).not.toHaveProperty("webhookUrl");
    expect(options).not.toHaveProperty("colour");
  });

  it.each([
    ["example.com", "http://example.com/"],
    ["example.com/a?b=1", "http://example.com/a?b=1"],
    ["example.com:8080/x", "http://example.com:8080/x"],
    ["  https://example.com  ", "https://example.com/"],
    ["HTTP://Example.COM", "http://example.com/"],
  ])("normalises the url %j to %j", (url, href) => {
    expect(parse({ url }).options.url).toBe(href);
  });

  it.each([
    [{ url: 42 }, "UrlWasNotAStringError"],
    [{ url: { href: "x" } }, "UrlWasNotAStringError"],
    [{}, "NoUrlSupplied"],
    [{ url: "" }, "NoUrlSupplied"],
    [{ url: "   " }, "NoUrlSupplied"],
    [{ url: null, width: 800 }, "NoUrlSupplied"],
    [{ url: "javascript:alert(1)" }, "InvalidURLError"],
    [{ url: "file:///etc/passwd" }, "InvalidURLError"],
    [{ url: "ftp://example.com/x" }, "InvalidURLError"],
    [{ url: "data:text/html,<p>x</p>" }, "InvalidURLError"],
    [{ url: "chrome://settings" }, "InvalidURLError"],
    [{ url: "http://" }, "InvalidURLError"],
    [{ url: "https://example.com", html: "<p>x</p>" }, "InvalidOptions"],
    [{ html: 5 }, "HTMLProcessError"],
  ])("refuses %j with %s", (input, code) => {
    expect(failure(input).code).toBe(code);
  });

  it("keeps the spellings of the options sent, so those the format does not read can be reported", () => {
    const { sent } = parse({ ...URL_IN, quality: "80", pdf_page_size: "a4", full_page: true });
    expect(sent).toEqual({ url: "url", quality: "quality", pdfPageSize: "pdf_page_size", fullPage: "full_page" });
    expect(ignoredForFormat(sent, "png", TABLE)).toEqual(["pdf_page_size", "quality"]);
    expect(ignoredForFormat(sent, "jpg", TABLE)).toEqual(["pdf_page_size"]);
    expect(ignoredForFormat(sent, "pdf", TABLE)).toEqual(["quality"]);
    // Defaults that were not sent are never reported.
    expect(ignoredForFormat(parse(URL_IN).sent, "md", TABLE)).toEqual([]);
  });

  it("refuses an option its format does not read when it asks for something, naming the formats that do", () => {
    const check = (input: Record<string, unknown>, format: string) => () =>
      checkCombinations(parse({ ...URL_IN, ...input }).options, format, TABLE);
    expect(check({ thumb_width: 50 }, "pdf")).toThrow(/^Option thumb_width resizes images only \(png, jpg\)$/);
    expect(check({ pdf_show_header: true }, "png")).toThrow(/pdf_show_header applies to format pdf only/);
    expect(check({ thumb_width: 50 }, "jpg")).not.toThrow();
    // Off (false) or the default asks for nothing; an "ignore" option is never refused.
    expect(check({ pdf_show_header: false, quality: 50 }, "png")).not.toThrow();
  });

  it("merges an option two formats declare alike, and refuses one declared differently", () => {
    const svgLike = { thumbWidth: num("Width.", { min: 1, max: 100, only: { formats: ["svg"], why: "x" } }) };
    const image = { name: "image", options: IMAGE_LIKE };
    const merged = mergeOptionTables(CORE_OPTIONS, [image, { name: "svg", options: svgLike }]);
    expect(merged.thumbWidth?.only?.formats).toEqual(["png", "jpg", "svg"]);
    const clash = { thumbWidth: num("Width.", { min: 1, max: 200, only: { formats: ["svg"], why: "x" } }) };
    expect(() => mergeOptionTables(CORE_OPTIONS, [image, { name: "svg", options: clash }])).toThrow(
      /thumbWidth" of svg is already defined/,
    );
    expect(() => mergeOptionTables(CORE_OPTIONS, [{ name: "x", options: { width: num("W.", { min: 1, max: 2 }) } }])).toThrow();
  });

  it("refuses input that is not an object", () => {
    expect(() => parseOptions([] as unknown as Record<string, unknown>, ctx)).toThrow(
      expect.objectContaining({ code: "InvalidOptions" }),
    );
  });

  it("takes html instead of url", () => {
    const { options } = parse({ html: "<p>x</p>", url: "" });
    expect(options.html).toBe("<p>x</p>");
    expect(options).not.toHaveProperty("url");
  });

  it("maps format synonyms and refuses formats no plugin provides", () => {
    expect(parse({ ...URL_IN, format: "jpeg" }).options.format).toBe("jpg");
    expect(parse({ ...URL_IN, format: "JPEG" }).options.format).toBe("jpg");
    expect(parse({ ...URL_IN, format: "markdown" }).options.format).toBe("md");
    expect(parseOptions({ ...URL_IN, format: "jpe" }, { ...ctx, formatSynonyms: { jpe: "jpg" } }).options.format).toBe("jpg");
    const error = failure({ ...URL_IN, format: "webp" });
    expect(error.code).toBe("InvalidOptions");
    expect(error.message).toContain("format");
    expect(error.message).toContain("png, jpg, pdf, md");
  });

  it("maps retina to deviceScaleFactor 2 unless a scale is given", () => {
    expect(parse({ ...URL_IN, retina: true }).options.deviceScaleFactor).toBe(2);
    expect(parse({ ...URL_IN, retina: "true", dpr: 3 }).options.deviceScaleFactor).toBe(3);
    expect(parse({ ...URL_IN, retina: false }).options.deviceScaleFactor).toBe(1);
  });

  it("keeps repeated click and header values in order", () => {
    expect(parse({ ...URL_IN, click: ["#a", "#b", ".c"] }).options.click).toEqual(["#a", "#b", ".c"]);
    expect(parse({ ...URL_IN, click: "#only" }).options.click).toEqual(["#only"]);
    expect(parse({ ...URL_IN, header: ["A=1", "B: 2"] }).options.headers).toEqual(["A=1", "B: 2"]);
  });

  it("maps wait_until synonyms", () => {
    expect(parse({ ...URL_IN, wait_until: "networkidle" }).options.waitUntil).toBe("requestsfinished");
    expect(parse({ ...URL_IN, waitUntil: "DOMContentLoaded" }).options.waitUntil).toBe("domloaded");
  });

  it("accepts one option spelled twice only when both values agree", () => {
    expect(parse({ ...URL_IN, full_page: true, fullPage: "1" }).options.fullPage).toBe(true);
    expect(parse({ ...URL_IN, dpr: 2, device_scale_factor: "2" }).options.deviceScaleFactor).toBe(2);
    const error = failure({ ...URL_IN, full_page: true, fullPage: false });
    expect(error.code).toBe("InvalidOptions");
    expect(error.message).toContain("full_page");
    expect(failure({ ...URL_IN, dpr: 2, device_scale_factor: 3 }).message).toContain("device_scale_factor");
  });

  it("accepts lengths as pixels or CSS lengths", () => {
    const { options } = parse({ ...URL_IN, pdf_margin_top: "2cm", pdf_margin_left: 12, pdf_margin_right: "15" });
    expect(options).toMatchObject({ pdfMarginTop: "2cm", pdfMarginLeft: 12, pdfMarginRight: 15 });
  });
});

describe("option names", () => {
  it("converts between spellings", () => {
    expect(camelize("full_page")).toBe("fullPage");
    expect(camelize("device-scale-factor")).toBe("deviceScaleFactor");
    expect(snakeName("deviceScaleFactor")).toBe("device_scale_factor");
    expect(snakeName("failOn4xx")).toBe("fail_on_4xx");
    expect(snakeName("useS3")).toBe("use_s3");
    expect(snakeName("s3Path")).toBe("s3_path");
    expect(snakeName("s3Storageclass")).toBe("s3_storageclass");
    expect(snakeName("s3PresignedUrl")).toBe("s3_presigned_url");
    for (const name of ["useS3", "s3Path", "s3PresignedUrl", "failOn4xx"]) expect(camelize(snakeName(name))).toBe(name);
  });
});

describe("storage options", () => {
  const refused = (options: Record<string, unknown>, option: string, code: ErrorCode = "InvalidOptions") => {
    let error: unknown;
    try {
      checkStorageOptions(options, true);
      checkObjectKey(options, { extension: "png" });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code, details: { option } });
  };

  it("refuses what an S3 client would refuse later, naming the option", () => {
    refused({ useS3: true, s3Region: "bad region!" }, "s3_region");
    refused({ useS3: true, s3Endpoint: "https://s3.example.com/?x=1" }, "s3_endpoint");
    refused({ useS3: true, s3Endpoint: "https://s3.example.com/#top" }, "s3_endpoint");
    refused({ useS3: true, s3Path: "a b" }, "s3_path");
    refused({ useS3: true, s3Bucket: "No_Such" }, "s3_bucket");
    refused({ s3Path: "x" }, "s3_path");
    refused({ useS3: true, s3PresignedUrl: "https://x.example/p" }, "s3_presigned_url");
    expect(() =>
      checkStorageOptions({ useS3: true, s3Region: "eu-west-1", s3Endpoint: "https://s3.example.com", s3Path: "a/b" }, true),
    ).not.toThrow();
  });

  it("checks the object key s3_path makes with the storages' own rule, extension included", () => {
    const png = { extension: "png" };
    refused({ useS3: true, s3Path: "a/b.meta.json", noSuffix: true }, "s3_path");
    refused({ useS3: true, s3Path: "a/../b" }, "s3_path");
    refused({ useS3: true, s3Path: "a/b/c/d/e/f" }, "s3_path");
    // Its extension makes it a key the storage takes; without, `.meta.json` is the storage's own.
    expect(() => checkObjectKey({ s3Path: "a/b.meta" }, png)).not.toThrow();
    expect(() => checkObjectKey({ s3Path: "a/b.meta", noSuffix: true }, { extension: "json" })).not.toThrow();
    expect(() => checkObjectKey({ s3Path: "a/b.meta" }, { extension: "json" })).toThrow(
      /^Option s3_path makes the object key "a\/b\.meta\.json", which the storage refuses/,
    );
  });

  it("without a destination resolver, use_s3 is NoS3BucketConfigured and a presigned upload is refused", () => {
    let error: unknown;
    try {
      checkStorageOptions({ useS3: true }, false);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "NoS3BucketConfigured" });
    expect(() => checkStorageOptions({ s3PresignedUrl: "https://x.example/p" }, false)).toThrow(/s3_presigned_url/);
  });
});
