import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { FinalRenderEvent } from "../contracts/events.js";
import type { Notifier } from "../contracts/notifier.js";

/** A notifier with its receiving side, as `make` builds it. */
export interface NotifierUnderTest {
  notifier: Notifier;
  /** Render ids the receiving side has seen, one entry per delivery (so a duplicate shows twice). */
  delivered: () => Promise<string[]>;
  /** Stops the receiving side and removes what the test made (the suite closes the notifier itself). */
  close?: () => Promise<void>;
}

export interface NotifierContractOptions {
  /** Title of the `describe` block. */
  name: string;
  /**
   * A fresh notifier and receiver, called once per check. The suite's events carry only what
   * `RenderEvent` requires; a notifier that reads its destination from the event (the webhook
   * notifier's address) gets it from a wrapper `make` puts around it.
   */
  make: () => Promise<NotifierUnderTest>;
  /** A notifier whose deliveries all fail (a receiver that refuses connections); its check is skipped without it. */
  failing?: () => Promise<{ notifier: Notifier; close?: () => Promise<void> }>;
  /** Titles of checks to skip (document why next to the call). */
  skip?: readonly string[];
  /** Timeout of each check in ms (default 30 000). */
  testTimeoutMs?: number;
  /** How long a delivery may take to reach the receiver, in ms (default 10 000). */
  deliveryTimeoutMs?: number;
}

const START = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

/** A `render.succeeded` event with every field `RenderEvent` and `RenderResult` require, and nothing else. */
export function succeededEvent(renderId: string = `contract-${randomUUID()}`): FinalRenderEvent {
  const result = {
    renderId,
    renderUrl: `https://renders.example.com/renders/${renderId}.png`,
    size: 12_345,
    renderTime: 812,
    queueTime: 4,
    bandwidth: 98_765,
    format: "png",
    contentType: "image/png",
    key: `${renderId}.png`,
  };
  return { type: "render.succeeded", renderId, result, startTime: START, endTime: START + 1_234 };
}

/** A `render.failed` event with every field `RenderEvent` requires, and nothing else. */
export function failedEvent(renderId: string = `contract-${randomUUID()}`): FinalRenderEvent {
  const reason = "The render did not finish within global_timeout (1000 ms)";
  return { type: "render.failed", renderId, code: "RenderTimeoutError", reason, startTime: START, endTime: START + 1_000 };
}

/**
 * The behaviour every `Notifier` must show: it delivers each final event once, drops one handed over
 * again (the core re-notifies from the record after a crash, `RendererSettings.finalEvent`), leaves
 * the event as it was, never throws for a delivery that fails, and closes idempotently.
 */
export function notifierContract(options: NotifierContractOptions): void {
  const wait = options.deliveryTimeoutMs ?? 10_000;
  const timeout = options.testTimeoutMs ?? 30_000;

  describe(`notifier contract: ${options.name}`, () => {
    function check(title: string, body: (made: NotifierUnderTest, skip: (why: string) => never) => Promise<void>): void {
      it(
        title,
        async (ctx) => {
          if (options.skip?.includes(title)) return ctx.skip("skipped by the caller");
          const made = await options.make();
          try {
            await body(made, (why) => ctx.skip(why) as never);
          } finally {
            await made.notifier.close?.();
            await made.close?.();
          }
        },
        timeout,
      );
    }

    /** How often the receiver has seen each of `ids`. */
    async function seen(made: NotifierUnderTest, ids: readonly string[]): Promise<number[]> {
      const all = await made.delivered();
      return ids.map((id) => all.filter((d) => d === id).length);
    }

    /** Waits until the receiver has seen every one of `ids`. */
    async function arrived(made: NotifierUnderTest, ids: readonly string[]): Promise<void> {
      await vi.waitFor(
        async () =>
          expect(
            (await seen(made, ids)).every((n) => n > 0),
            `seen ${ids.join(", ")}`,
          ).toBe(true),
        {
          timeout: wait,
          interval: 20,
        },
      );
    }

    /**
     * Waits until a fresh event notified now has arrived: a duplicate sent late would most likely
     * have arrived before it, so counts taken afterwards see it, without a fixed sleep.
     */
    async function settled(made: NotifierUnderTest): Promise<void> {
      const sentinel = succeededEvent();
      await made.notifier.notify(sentinel);
      await arrived(made, [sentinel.renderId]);
    }

    check("has a name for the logs", async ({ notifier }) => {
      expect(notifier.name).toBeTypeOf("string");
      expect(notifier.name.trim()).not.toBe("");
    });

    check("delivers a render.succeeded and a render.failed event, each once", async (made) => {
      const ok = succeededEvent();
      const bad = failedEvent();
      await expect(made.notifier.notify(ok)).resolves.toBeUndefined();
      await expect(made.notifier.notify(bad)).resolves.toBeUndefined();
      await arrived(made, [ok.renderId, bad.renderId]);
      await settled(made);
      expect(await seen(made, [ok.renderId, bad.renderId])).toEqual([1, 1]);
    });

    check("a final event handed over again is not delivered again", async (made) => {
      const event = succeededEvent();
      await made.notifier.notify(event);
      await arrived(made, [event.renderId]);
      await expect(made.notifier.notify(structuredClone(event))).resolves.toBeUndefined();
      await settled(made);
      expect(await seen(made, [event.renderId])).toEqual([1]);
    });

    check("leaves the event it is given as it was", async (made) => {
      const events = [succeededEvent(), failedEvent()];
      const copies = structuredClone(events);
      for (const event of events) await made.notifier.notify(event);
      await arrived(
        made,
        events.map((e) => e.renderId),
      );
      expect(events).toEqual(copies);
    });

    it(
      "does not throw from notify when its deliveries fail",
      async (ctx) => {
        const title = "does not throw from notify when its deliveries fail";
        if (options.skip?.includes(title)) return ctx.skip("skipped by the caller");
        if (!options.failing) return ctx.skip("no failing notifier given");
        const { notifier, close } = await options.failing();
        try {
          await expect(notifier.notify(succeededEvent())).resolves.toBeUndefined();
          await expect(notifier.notify(failedEvent())).resolves.toBeUndefined();
        } finally {
          await notifier.close?.();
          await close?.();
        }
      },
      timeout,
    );

    check("close resolves after a delivery, and a second close is harmless", async (made, skip) => {
      if (!made.notifier.close) return skip("the notifier has no close");
      const event = failedEvent();
      await made.notifier.notify(event);
      await arrived(made, [event.renderId]);
      await expect(made.notifier.close()).resolves.toBeUndefined();
      await expect(made.notifier.close()).resolves.toBeUndefined();
    });
  });
}
