/**
 * Flags measured to work headless in containers (environment.md §3). `--no-sandbox` is not among
 * them: it is added only where the sandbox cannot work (see `decideSandbox`).
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--disable-extensions",
  "--disable-default-apps",
  "--disable-breakpad",
  "--disable-crash-reporter",
  "--hide-scrollbars",
  "--mute-audio",
  "--password-store=basic",
  "--use-mock-keychain",
  "--force-color-profile=srgb",
  // A render never goes back: a page left for the next one (or a reset's empty document) would be
  // kept alive, frozen, in the back-forward cache, which costs its memory and ~60 ms a navigation.
  "--disable-back-forward-cache",
  // WebRTC could reach addresses without the proxy: only proxied UDP, which there is none of.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  // One list: Chromium reads only the last --disable-features. Besides services a render never
  // uses: RenderDocument (a new frame host, widget and compositor for every document, which made
  // a reused page's about:blank cost as much renderer time as the render) and the spare renderer
  // (kept warm for one browser context, it is thrown away and started again whenever another
  // context navigates: with a context per project that was every render). Measured on this
  // machine (docs/performance.md): +45% renders/s with reused pages, +20% for a raw browser.
  // And the omnibox's WebUI popups (WebUIOmniboxPopup, WebUIOmniboxAimPopup): Chromium 156 loads
  // them for every window, so every browser context had a renderer process of its own for an
  // address bar no one sees: ~44 MB and ~80 ms of a new context (230 -> 150 ms).
  "--disable-features=Translate,MediaRouter,OptimizationHints,OptimizationGuideModelDownloading,OnDeviceModelPerformanceParams,AutofillServerCommunication,InterestFeedContentSuggestions,DialMediaRouteProvider,RenderDocument,SpareRendererForSitePerProcess,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
  // A DevTools screenshot draws a new surface of the page instead of waiting for the compositor's
  // next frame (Playwright turns this on for its own launches): after a reset's about:blank the
  // capture took ~66 ms, with it ~54 (docs/performance.md). Also one list: an operator's
  // --enable-features in `args` replaces it.
  "--enable-features=CDPScreenshotNewSurface",
];
