import { type PageSettings, withTimeout } from "@renderkit/core";
import { type EgressSession, fixedSettingsKey, IDLE_POLICY, openEgressSession } from "@renderkit/core/chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";

/** A context and page opened ahead of need: a new page costs ~130-230 ms, most of a simple render. */
export interface SparePage {
  key: string;
  context: BrowserContext;
  page: Page;
  egress: EgressSession;
}

/** Creates a context behind `egress` with the settings that cannot change later. */
export function newContext(browser: Browser, settings: PageSettings, egress: EgressSession): Promise<BrowserContext> {
  return browser.newContext({
    // `<-loopback>` explicitly: Chromium sends loopback around a proxy unless told not to, and
    // Playwright's own default (adding it) can be switched off by an environment variable.
    proxy: { server: egress.proxyUrl, bypass: "<-loopback>" },
    viewport: { width: settings.width, height: settings.height },
    deviceScaleFactor: settings.deviceScaleFactor,
    userAgent: settings.userAgent,
    locale: settings.locale,
    timezoneId: settings.timezone,
    colorScheme: settings.colorScheme,
    reducedMotion: settings.reducedMotion ? "reduce" : "no-preference",
    javaScriptEnabled: settings.javaScriptEnabled,
    // Injected css/js must work on pages with a strict Content-Security-Policy.
    bypassCSP: true,
    serviceWorkers: "block",
    acceptDownloads: false,
  });
}

/** Opens a spare for renders shaped like `settings`; resolves undefined when that fails. */
export async function openSpare(browser: Browser, settings: PageSettings): Promise<SparePage | undefined> {
  const egress = await openEgressSession(IDLE_POLICY);
  let context: BrowserContext | undefined;
  try {
    context = await newContext(browser, settings, egress);
    const page = await context.newPage();
    return { key: fixedSettingsKey(settings), context, page, egress };
  } catch {
    if (context) await withTimeout(context.close(), 5_000).catch(() => undefined);
    await egress.close();
    return undefined;
  }
}

/** Discards a spare nobody claimed. */
export async function closeSpare(spare: SparePage | undefined): Promise<void> {
  if (!spare) return;
  await withTimeout(spare.context.close(), 5_000).catch(() => undefined);
  await spare.egress.close();
}
