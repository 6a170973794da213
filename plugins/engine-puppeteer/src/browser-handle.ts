import { ChromiumProcess, type Logger } from "@renderkit/core";
import { type Browser, connect } from "puppeteer-core";

/** One launched Chromium and Puppeteer's connection to it. */
export class BrowserHandle {
  /** Sessions opened on this browser so far. */
  renders = 0;
  /** Sessions open right now. */
  active = 0;
  /** Set when the browser crashed or is being recycled: no new sessions. */
  retired = false;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly browser: Browser,
    readonly process: ChromiumProcess,
  ) {}

  static async launch(executablePath: string, args: readonly string[], logger: Logger): Promise<BrowserHandle> {
    const proc = await ChromiumProcess.launch({ executablePath, args });
    try {
      // `defaultViewport: null`: every page sets its own viewport (and scale factor) before loading.
      // A DevTools call to a wedged renderer fails after 2 min instead of Puppeteer's default 3.
      const browser = await connect({ browserWSEndpoint: proc.wsEndpoint, defaultViewport: null, protocolTimeout: 120_000 });
      const handle = new BrowserHandle(browser, proc);
      const onGone = () => {
        if (!handle.closing) logger.warn("browser went away; the next render relaunches it", { pid: proc.pid });
        handle.retired = true;
      };
      browser.on("disconnected", onGone);
      void proc.exited.then(onGone);
      return handle;
    } catch (error) {
      await proc.kill();
      throw error;
    }
  }

  get usable(): boolean {
    return !this.retired && this.process.alive && this.browser.connected;
  }

  /**
   * Disconnects and kills the process group; idempotent. No graceful `Browser.close`: the profile
   * is deleted anyway, and the kill is immediate where a graceful close costs ~150 ms.
   */
  close(): Promise<void> {
    this.retired = true;
    this.closing ??= (async () => {
      await Promise.race([this.browser.disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000).unref())]);
      await this.process.kill();
    })();
    return this.closing;
  }
}
