import { stat } from "node:fs/promises";
import { join } from "node:path";
import { createRenderer, NOTIFIER } from "@renderkit/core";
import { WebhookNotifier, webhookNotifier } from "@renderkit/notifier-webhook";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../../../core/dist/settings.js";
import { useCleanup } from "../../../test/helpers/cleanup.js";
import { registerPlugin } from "../../../test/helpers/plugins.js";
import { receiver, recordingLogger, SECRET, succeeded, tempDir, waitFor } from "./helpers.js";

const cleanup = useCleanup();

describe("webhookNotifier", () => {
  it("checks its options when the factory is called", () => {
    const secretFor = () => SECRET;
    expect(() => webhookNotifier({ secretFor, schedule: [-1] })).toThrow(/schedule\[0\]/);
    expect(() => webhookNotifier({ secretFor, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => webhookNotifier({ secretFor, jitter: 2 })).toThrow(/jitter/);
    expect(() => webhookNotifier({} as never)).toThrow(/secretFor/);
    expect(webhookNotifier({ secretFor }).name).toBe("@renderkit/notifier-webhook");
  });

  it("registers a WebhookNotifier under NOTIFIER, started, in <dataDir>/webhooks, with the renderer's address policy", async () => {
    const dataDir = await tempDir(cleanup);
    const rx = await receiver(cleanup);
    const settings = resolveSettings({ dataDir, allowPrivateNetworks: [`127.0.0.1:${rx.port}`] });
    const registered = registerPlugin(webhookNotifier({ secretFor: () => SECRET, schedule: [] }), settings);
    expect(registered).toHaveLength(1);
    expect(registered[0]?.token).toBe(NOTIFIER);
    const notifier = registered[0]?.value as WebhookNotifier;
    cleanup.push(() => notifier.close());
    expect(notifier).toBeInstanceOf(WebhookNotifier);
    expect(notifier.dir).toBe(join(dataDir, "webhooks"));
    await waitFor(async () => Boolean(await stat(join(dataDir, "webhooks", "pending")).catch(() => undefined)));

    await notifier.notify(succeeded("r-plugin", { projectId: "p", webhookUrl: rx.url() }));
    await waitFor(async () => (await notifier.state("r-plugin")) === "delivered");
    expect(rx.hits.map((h) => h.verified)).toEqual([true]);
  });

  it("is closed with the renderer", async () => {
    const dataDir = await tempDir(cleanup);
    const renderer = await createRenderer({
      dataDir,
      logger: recordingLogger(),
      plugins: [webhookNotifier({ secretFor: () => SECRET, dir: join(dataDir, "hooks") })],
    });
    await renderer.close();
    expect((await stat(join(dataDir, "hooks", "pending"))).isDirectory()).toBe(true);
  });
});
