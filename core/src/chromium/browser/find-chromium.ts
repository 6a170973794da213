import { accessSync, constants, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { RenderError } from "../../index.js";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Browsers Playwright manages (`npx playwright install`), newest first; only used when present. */
function managedBrowsers(): string[] {
  const root = process.env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), ".cache", "ms-playwright");
  try {
    return readdirSync(root)
      .filter((d) => /^chromium(_headless_shell)?-\d+$/.test(d))
      .sort()
      .reverse()
      .flatMap((d) => [join(root, d, "chrome-linux", "chrome"), join(root, d, "chrome-linux", "headless_shell")]);
  } catch {
    return [];
  }
}

/**
 * Finds a Chromium to launch: the explicit path, `RENDERKIT_CHROMIUM`, Debian's
 * Chromium (the real binary first: the `/usr/bin/chromium` wrapper adds extension flags),
 * other common system paths, then a browser Playwright already downloaded. Never downloads.
 */
export function findChromium(explicit?: string): string {
  const configured = explicit ?? process.env.RENDERKIT_CHROMIUM;
  if (configured) {
    if (executable(configured)) return configured;
    throw new RenderError(
      "EngineResponseNotOkError",
      `The configured Chromium ${configured} does not exist or is not executable`,
    );
  }
  const candidates = [
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome-stable",
    "/usr/bin/google-chrome",
    "/snap/bin/chromium",
    ...managedBrowsers(),
  ];
  const found = candidates.find(executable);
  if (found) return found;
  throw new RenderError(
    "EngineResponseNotOkError",
    "No Chromium found. Install it (Debian/Ubuntu: `apt-get install chromium`) or set RENDERKIT_CHROMIUM to its path.",
  );
}

/**
 * True when Chromium has a setuid-root sandbox helper (`chrome-sandbox` beside the real binary, as
 * Google's builds ship it, or `CHROME_DEVEL_SANDBOX`): it then sandboxes without user namespaces.
 * Debian's Chromium has none and relies on user namespaces.
 */
export function hasSetuidSandbox(executablePath: string): boolean {
  const candidates = [process.env.CHROME_DEVEL_SANDBOX];
  try {
    candidates.push(join(dirname(realpathSync(executablePath)), "chrome-sandbox"));
  } catch {}
  return candidates.some((path) => {
    if (!path) return false;
    try {
      const stat = statSync(path);
      return stat.uid === 0 && (stat.mode & 0o4000) !== 0;
    } catch {
      return false;
    }
  });
}
