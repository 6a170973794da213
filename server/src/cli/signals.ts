import type { Logger } from "@renderkit/core";
import type { ProjectStore } from "../projects/store.js";

/**
 * The CLI's signal handling, for `serve` and `worker` alike: SIGTERM and SIGINT drain (`close`)
 * and exit 0; SIGHUP re-reads the projects (a project made with `renderkit projects create`).
 */
export function handleSignals(close: () => Promise<void>, projects: ProjectStore, logger: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info("signal received", { signal });
    void close().then(() => process.exit(0));
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  process.on("SIGHUP", () => {
    void projects.reload().then(
      (changed) => logger.info("projects reloaded", { changed }),
      (error: unknown) => logger.warn("projects could not be reloaded", { error: String(error) }),
    );
  });
}
