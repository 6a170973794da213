import type { PageSettings, PageTarget } from "@renderkit/core";
import { scopeCookies } from "@renderkit/core/chromium";
import type { CDPSession, Page } from "puppeteer-core";

/**
 * Applies every page setting before navigation. Puppeteer has no context-level emulation, so
 * each page gets it here; the locale goes through a DevTools session of our own because Puppeteer
 * has no API for it: `acceptLanguage` sets both `Accept-Language` and `navigator.language`,
 * `setLocaleOverride` the default `Intl` locale (what Playwright's `locale` does). The session
 * must stay attached while the page lives: its overrides end with it. `media` only when set:
 * otherwise Chromium picks `screen`, and `print` when printing. `everywhere`: the extra headers
 * that may go to every origin (the caller's own go to the target's only: `applyPageHooks`).
 */
export async function setUpPage(
  page: Page,
  target: PageTarget,
  settings: PageSettings,
  everywhere: Record<string, string>,
): Promise<CDPSession> {
  const cdp = await page.createCDPSession();
  page.setDefaultTimeout(settings.timeoutMs);
  page.setDefaultNavigationTimeout(settings.timeoutMs);
  const steps: Promise<unknown>[] = [
    page.setViewport({ width: settings.width, height: settings.height, deviceScaleFactor: settings.deviceScaleFactor }),
    // Injected css/js must work on pages with a strict Content-Security-Policy.
    page.setBypassCSP(true),
    // Requests never go to a service worker (Playwright's `serviceWorkers: "block"` does the same).
    page.setBypassServiceWorker(true),
    // Page events on this session: the session hears of a new document in the main frame.
    cdp.send("Page.enable"),
    emulateMedia(cdp, settings),
  ];
  if (settings.userAgent !== undefined || settings.locale !== undefined) {
    // An empty userAgent keeps the browser's own and still applies acceptLanguage.
    steps.push(
      cdp.send("Emulation.setUserAgentOverride", { userAgent: settings.userAgent ?? "", acceptLanguage: settings.locale }),
    );
  }
  if (settings.locale) steps.push(cdp.send("Emulation.setLocaleOverride", { locale: settings.locale }));
  if (settings.timezone) steps.push(page.emulateTimezone(settings.timezone));
  if (!settings.javaScriptEnabled) steps.push(page.setJavaScriptEnabled(false));
  if (Object.keys(everywhere).length > 0) steps.push(page.setExtraHTTPHeaders(everywhere));
  steps.push(setCookies(cdp, target, settings));
  if (settings.geolocation) {
    // `*`: granted to every origin the page and its frames load, as Playwright's grant without origin.
    const grant = { permission: { name: "geolocation" as const }, state: "granted" as const };
    steps.push(page.browserContext().setPermission("*", grant), page.setGeolocation(settings.geolocation));
  }
  await Promise.all(steps);
  return cdp;
}

/**
 * One call for type and features: Puppeteer's emulateMediaType and emulateMediaFeatures both send
 * `setEmulatedMedia`, and each call resets what the other set.
 */
function emulateMedia(cdp: CDPSession, settings: PageSettings): Promise<unknown> {
  return cdp.send("Emulation.setEmulatedMedia", {
    media: settings.media ?? "",
    features: [
      { name: "prefers-color-scheme", value: settings.colorScheme },
      { name: "prefers-reduced-motion", value: settings.reducedMotion ? "reduce" : "no-preference" },
    ],
  });
}

/** Through DevTools: `Network.setCookies` takes a `url` for host-only cookies, as Playwright's `addCookies` does. */
async function setCookies(cdp: CDPSession, target: PageTarget, settings: PageSettings): Promise<void> {
  const cookies = scopeCookies(settings.cookies, target);
  if (cookies.length > 0) await cdp.send("Network.setCookies", { cookies });
}

/** The per-render settings a page holds: its extra headers and emulated media, as JSON. */
export function appliedSettings(settings: PageSettings, everywhere: Record<string, string>): string {
  return JSON.stringify([everywhere, settings.media ?? "", settings.colorScheme, settings.reducedMotion]);
}

/**
 * Says a reused page's per-render settings again on the session it kept (`setUpPage` made it): the
 * viewport, cookies and timeouts, and the media and extra headers when they differ from what the
 * page was last given (`applied`, from `appliedSettings`). The rest (user agent, locale, time
 * zone, JavaScript, device scale) is the same for every render that may reuse the page
 * (`reuseKey`), and the reset cleared the last render's cookies.
 */
export async function refreshPage(
  page: Page,
  cdp: CDPSession,
  target: PageTarget,
  settings: PageSettings,
  everywhere: Record<string, string>,
  applied: string,
): Promise<void> {
  page.setDefaultTimeout(settings.timeoutMs);
  page.setDefaultNavigationTimeout(settings.timeoutMs);
  const size = page.viewport();
  const steps: Promise<unknown>[] = [setCookies(cdp, target, settings)];
  if (appliedSettings(settings, everywhere) !== applied) {
    steps.push(emulateMedia(cdp, settings), page.setExtraHTTPHeaders(everywhere));
  }
  if (size?.width !== settings.width || size?.height !== settings.height) {
    steps.push(
      page.setViewport({ width: settings.width, height: settings.height, deviceScaleFactor: settings.deviceScaleFactor }),
    );
  }
  await Promise.all(steps);
}
