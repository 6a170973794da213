// A third-party format plugin: `format: "txt"` answers with the text a reader sees on the page
// (`innerText` after the page's scripts ran, so hidden elements and script bodies are left out).
// It depends on @renderkit/core only, as every plugin must, and adds one option of its own.

import { definePlugin, FORMATTER, num, RenderError } from "@renderkit/core";

/** Runs in the page: the visible text of the body (or of the `selector` element). */
const VISIBLE_TEXT = `(selector) => {
  const root = selector ? document.querySelector(selector) : document.body;
  return root ? root.innerText : null;
}`;

/** The formatter the plugin registers; one instance per renderer. */
class TextFormatter {
  name = "example/format-text";
  // `requires` names the engine capabilities the format needs: both first-party engines have
  // `content`; an engine without it gets a clear error instead of a wrong file.
  formats = [{ format: "txt", contentType: "text/plain; charset=utf-8", extension: "txt", requires: ["content"] }];
  // Options join the request schema: snake_case and camelCase, string coercion, bounds and a
  // 400 InvalidOptions naming the option all come from the core. A name another part defines is
  // refused when the renderer starts.
  options = {
    txtMaxChars: num("Longest text to return, in characters; the rest is cut. Default: the plugin's limit.", {
      min: 1,
      max: 10_000_000,
      integer: true,
    }),
  };
  #settings;

  constructor(settings) {
    this.#settings = settings;
  }

  /** Called when the request is parsed (a 400 before anything is queued). */
  validate(options) {
    if (options.txtMaxChars !== undefined && options.txtMaxChars > this.#settings.maxChars) {
      throw new RenderError("InvalidOptions", `Option txt_max_chars is at most ${this.#settings.maxChars} here`, {
        details: { option: "txt_max_chars" },
      });
    }
  }

  async render(session, { options }) {
    const text = await session.evaluate(VISIBLE_TEXT, options.selector ?? null);
    if (text === null) {
      throw new RenderError("EngineResponseNotOkError", `selector: nothing matches "${options.selector}"`);
    }
    const limit = options.txtMaxChars ?? this.#settings.maxChars;
    const kept = text.slice(0, limit);
    // `extras` join the render result (and the server's status record and webhook result).
    return { body: Buffer.from(kept, "utf8"), extras: { characters: kept.length, truncated: kept.length < text.length } };
  }
}

/** `createRenderer({ plugins: [playwright(), textFormat({ maxChars })] })`; `maxChars` caps every request. */
export const textFormat = definePlugin((settings = {}) => ({
  name: "example/format-text",
  // The cores it works with (its peerDependencies range): another core refuses it at start.
  core: "^0.1.0",
  register({ provide }) {
    provide(FORMATTER, new TextFormatter({ maxChars: settings.maxChars ?? 1_000_000 }));
  },
}));
export default textFormat;
