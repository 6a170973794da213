import type { RenderOptions } from "../contracts/render-options.js";

/**
 * Init scripts of the page options (issue 11), run in every frame before the page's own scripts:
 * `disable_animations` and `block_sockets`. Engines add them with `PageSettings.initScripts`
 * (Playwright `addInitScript`, Puppeteer `evaluateOnNewDocument`, out-of-process frames included).
 */

/**
 * CSS of `disable_animations`: CSS animations and transitions take no time, so they jump to
 * their end (an animation's fill mode decides whether its end state stays, as when it ends).
 */
export const NO_ANIMATION_CSS =
  "*,*::before,*::after{animation-duration:0s!important;animation-delay:0s!important;transition-duration:0s!important;transition-delay:0s!important}";

/**
 * In-page source finishing one Web Animation: a finite one jumps to its end, an infinite one
 * (which has no end) is cancelled, as Playwright's `animations: "disabled"` does.
 */
const FINISH_SOURCE = `(animation) => {
  try {
    const timing = animation.effect && animation.effect.getComputedTiming ? animation.effect.getComputedTiming() : undefined;
    if (timing && timing.endTime === Infinity) animation.cancel();
    else animation.finish();
  } catch (error) {
    try { animation.cancel(); } catch (ignored) {}
  }
}`;

/**
 * `disable_animations` in every frame, from the document's start: the CSS above as an adopted
 * style sheet (no element needed yet), and `Element.prototype.animate` finishing every animation
 * it starts, so animations started after load are stopped too.
 */
export const DISABLE_ANIMATIONS_SCRIPT = `(() => {
  const finish = ${FINISH_SOURCE};
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(${JSON.stringify(NO_ANIMATION_CSS)});
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch (ignored) {}
  const animate = Element.prototype.animate;
  if (typeof animate === "function") {
    Element.prototype.animate = function (...args) {
      const animation = animate.apply(this, args);
      finish(animation);
      return animation;
    };
  }
})();`;

/** In-page step before capture: finishes every animation of the document (CSS ones included). */
export const FINISH_ANIMATIONS_SOURCE = `() => {
  const finish = ${FINISH_SOURCE};
  const all = typeof document.getAnimations === "function" ? document.getAnimations() : [];
  for (const animation of all) finish(animation);
  return all.length;
}`;

/**
 * `block_sockets` in every frame: `WebSocket` is replaced by a stand-in that never connects. It
 * behaves as a connection the network refused: `readyState` CONNECTING, then an `error` and a
 * `close` event (code 1006, not clean); `send()` while connecting throws as the real one does.
 */
export const BLOCK_SOCKETS_SCRIPT = `(() => {
  if (typeof window.WebSocket !== "function") return;
  const fire = (socket, event) => {
    const handler = socket["on" + event.type];
    socket.dispatchEvent(event);
    if (typeof handler === "function") { try { handler.call(socket, event); } catch (error) { setTimeout(() => { throw error; }); } }
  };
  class WebSocket extends EventTarget {
    constructor(url, protocols) {
      super();
      let address;
      try { address = new URL(String(url), location.href); } catch (error) { throw new DOMException("The URL '" + url + "' is invalid.", "SyntaxError"); }
      if (address.protocol === "http:") address.protocol = "ws:";
      if (address.protocol === "https:") address.protocol = "wss:";
      if (address.protocol !== "ws:" && address.protocol !== "wss:") throw new DOMException("The URL's scheme must be either 'ws' or 'wss'.", "SyntaxError");
      Object.defineProperties(this, { url: { value: address.href, enumerable: true } });
      this.readyState = 0;
      this.protocol = "";
      this.extensions = "";
      this.bufferedAmount = 0;
      this.binaryType = "blob";
      this.onopen = null; this.onmessage = null; this.onerror = null; this.onclose = null;
      setTimeout(() => {
        if (this.readyState === 3) return;
        this.readyState = 3;
        fire(this, new Event("error"));
        fire(this, new CloseEvent("close", { code: 1006, reason: "", wasClean: false }));
      }, 0);
    }
    send() {
      if (this.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", "InvalidStateError");
    }
    close() {
      if (this.readyState >= 2) return;
      this.readyState = 3;
      setTimeout(() => fire(this, new CloseEvent("close", { code: 1006, reason: "", wasClean: false })), 0);
    }
  }
  for (const [name, value] of [["CONNECTING", 0], ["OPEN", 1], ["CLOSING", 2], ["CLOSED", 3]]) {
    Object.defineProperty(WebSocket, name, { value, enumerable: true });
    Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
  }
  Object.defineProperty(window, "WebSocket", { value: WebSocket, writable: true, configurable: true });
})();`;

/** The init scripts the request's page options need, in order (none: an empty list). */
export function pageOptionScripts(options: RenderOptions): string[] {
  const scripts: string[] = [];
  if (options.blockSockets) scripts.push(BLOCK_SOCKETS_SCRIPT);
  if (options.disableAnimations) scripts.push(DISABLE_ANIMATIONS_SCRIPT);
  return scripts;
}
