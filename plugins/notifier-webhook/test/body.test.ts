import type { RenderEvent } from "@renderkit/core";
import { type FinalRenderEvent, isFinalEvent, webhookBody } from "@renderkit/notifier-webhook";
import { describe, expect, it } from "vitest";
import { failed, succeeded } from "./helpers.js";

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("webhookBody", () => {
  it("render.succeeded: the spec's fields in the spec's order, compact, nothing internal", () => {
    const body = webhookBody(
      succeeded(
        "r-1",
        { projectId: "p", webhookUrl: "https://x" },
        { truncated: true, location: { kind: "s3", bucket: "customer" } },
      ) as FinalRenderEvent,
    );
    expect(body).toBe(
      '{"event":"render.succeeded","renderId":"r-1","result":{"renderUrl":"https://renders.example.com/renders/r-1.png",' +
        '"size":12345,"renderTime":812,"queueTime":4,"bandwidth":98765,"truncated":true},' +
        '"meta":{"startTime":"2025-01-02T03:04:05.678Z","endTime":"2025-01-02T03:04:06.912Z"}}',
    );
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(["event", "renderId", "result", "meta"]);
    expect(Object.keys(parsed.meta)).toEqual(["startTime", "endTime"]);
    expect(parsed.meta.startTime).toMatch(ISO_MS);
    expect(parsed.meta.endTime).toMatch(ISO_MS);
  });

  it("render.succeeded carries side-render and format fields when the result has them", () => {
    const extra = {
      htmlUrl: "https://h",
      markdownUrl: "https://m",
      metadataUrl: "https://d",
      metadata: { title: "T" },
      blank: true,
      frameRate: 29.7,
    };
    const parsed = JSON.parse(webhookBody(succeeded("r-2", undefined, extra) as FinalRenderEvent));
    expect(Object.keys(parsed.result)).toEqual([
      "renderUrl",
      "size",
      "renderTime",
      "queueTime",
      "bandwidth",
      "htmlUrl",
      "markdownUrl",
      "metadataUrl",
      "metadata",
      "blank",
      "frameRate",
    ]);
    expect(parsed.result.metadata).toEqual({ title: "T" });
    expect(parsed.result).not.toHaveProperty("key");
    expect(parsed.result).not.toHaveProperty("path");
  });

  it("render.failed: error.message is the reason; the error code is not part of the spec body", () => {
    const body = webhookBody(failed("r-3_s") as FinalRenderEvent);
    expect(body).toBe(
      '{"event":"render.failed","renderId":"r-3_s","error":{"message":"The page answered 502"},' +
        '"meta":{"startTime":"2025-01-02T03:04:05.678Z","endTime":"2025-01-02T03:04:06.912Z"}}',
    );
  });

  it("isFinalEvent picks the two events that produce webhooks", () => {
    const created: RenderEvent = { type: "render.created", renderId: "r", at: 1 };
    expect(isFinalEvent(created)).toBe(false);
    expect(isFinalEvent(succeeded("r"))).toBe(true);
    expect(isFinalEvent(failed("r"))).toBe(true);
  });
});
