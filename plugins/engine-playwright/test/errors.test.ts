import { DevtoolsError } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";
import { translateError } from "../dist/errors.js";

describe("the Playwright engine's error translation", () => {
  it("reads a DevTools link session that ended under a call as the browser going away (retryable)", () => {
    const ended = new DevtoolsError("Page.captureScreenshot: the page's DevTools session ended", true);
    const error = translateError(ended, "taking the screenshot");
    expect(error).toMatchObject({ code: "EngineResponseNotOkError", retryable: true });
    expect(error.message).toBe("The browser went away during taking the screenshot");
  });

  it("keeps Chromium's own refusal a failure of the step, not retried", () => {
    const refused = new DevtoolsError("Page.captureScreenshot: Unable to capture screenshot");
    const error = translateError(refused, "taking the screenshot");
    expect(error).toMatchObject({ code: "EngineResponseNotOkError", retryable: false });
    expect(error.message).toBe("taking the screenshot failed: Page.captureScreenshot: Unable to capture screenshot");
  });
});
