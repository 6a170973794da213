import { RenderError } from "@renderkit/core";
import { type DriverErrorKinds, translateDriverError } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";

class DriverTimeout extends Error {}

/** A driver that says "timeout" with its own class and "gone" with its own text. */
const kinds: DriverErrorKinds = {
  isTimeout: (error) => error instanceof DriverTimeout,
  isGone: (error) => error instanceof Error && /Target closed/.test(error.message),
  badSelector: /is not a valid selector/,
  badKey: /Unknown key: /,
};

describe("translateDriverError", () => {
  it("passes a RenderError through unchanged", () => {
    const error = new RenderError("InvalidOptions", "Option cookies: bad");
    expect(translateDriverError(error, "loading the page", kinds)).toBe(error);
  });

  it("tells the codes a client sees apart, from the driver's kinds and Chromium's text", () => {
    const code = (error: unknown) => translateDriverError(error, "loading the page", kinds).code;
    expect(code(new DriverTimeout("Timeout 30000ms exceeded.\nCall log: …"))).toBe("RenderTimeoutError");
    expect(code(new Error("page.goto: net::ERR_NAME_NOT_RESOLVED at https://nowhere.invalid/"))).toBe("URLDoesNotResolveError");
    expect(code(new Error("page.goto: net::ERR_CONNECTION_REFUSED at http://example.com/"))).toBe("EngineResponseNotOkError");
    expect(code(new Error("'##' is not a valid selector"))).toBe("InvalidOptions");
    expect(code(new Error('Unknown key: "Nope"'))).toBe("InvalidOptions");
    expect(code(new Error("something else"))).toBe("EngineResponseNotOkError");
  });

  it("marks a browser that went away as retryable, and only that", () => {
    const gone = translateDriverError(new Error("Protocol error: Target closed"), "taking the screenshot", kinds);
    expect(gone.message).toBe("The browser went away during taking the screenshot");
    expect(gone.retryable).toBe(true);
    expect(translateDriverError(new Error("something else"), "taking the screenshot", kinds).retryable).toBeFalsy();
  });

  it("names the Chromium network error and keeps only the first line of the message", () => {
    const error = translateDriverError(
      new Error("net::ERR_CONNECTION_RESET at x\nCall log:\n  - navigating"),
      "loading the page",
      kinds,
    );
    expect(error.message).toBe("The page could not be loaded: net::ERR_CONNECTION_RESET");
    const timeout = translateDriverError(new DriverTimeout("Timeout 5ms exceeded.\nCall log:"), "waiting", kinds);
    expect(timeout.message).toBe("waiting timed out: Timeout 5ms exceeded.");
  });
});
