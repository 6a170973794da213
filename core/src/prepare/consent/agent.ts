/**
 * The in-page side of autoconsent: a message handler the library's content script talks to
 * (`autoconsentSendMessage`), which answers its `init` with configuration and rules and records
 * its progress where the main frame can read it. There is no round trip to Node: engines have no
 * binding API for it, so the init script carries the rules. Frames post their progress to the
 * top frame, which keeps one entry per frame.
 *
 * `consentAgent` is serialised with `Function.prototype.toString` into the init script, so it
 * must stay self-contained (no imports, no outer variables).
 */

/** Window property (non-enumerable) holding the progress record in every frame. */
export const RECORD_KEY = "__renderkitConsent";
/** Key of the messages frames post to the top frame. */
const CHANNEL = "__renderkitConsentFrame";

/** Progress of autoconsent in one frame, as the top frame records it. */
export interface FrameProgress {
  /** Random id of the frame's instance. */
  id: string;
  main: boolean;
  /** autoconsent's lifecycle state (`started`, `nothingDetected`, `done`...). */
  lifecycle: string;
  /** Detection passes run so far. */
  attempts: number;
  /** Rule whose CMP was detected. */
  cmp?: string;
  /** Rule whose popup was found open. */
  popup?: string;
  /** Result of the opt-out / opt-in run. */
  result?: boolean;
  /** Rule that finished (autoconsentDone). */
  done?: string;
}

/** What the init script passes to the agent besides the rules. */
export interface AgentSetup {
  key: string;
  channel: string;
  /** `compact`: the rules are a compact rule set; `full`: a list of declarative rules. */
  format: "compact" | "full";
  config: Record<string, unknown>;
}

type Message = { type: string } & Record<string, unknown>;
type Receive = (message: object) => Promise<unknown>;

/**
 * Installs the progress record and returns the message handler for the content script, and
 * `start`, to call once the content script ran. Null when this document already has an agent.
 */
export function consentAgent(
  setup: AgentSetup,
  rules: unknown,
): { send: (m: Message) => Promise<void>; start: () => void } | null {
  interface Tracked extends FrameProgress {
    changedAt: number;
    attemptAt: number;
  }
  interface ProgressRecord {
    frames: Record<string, Tracked>;
    root: Element | null;
  }
  const w = window as unknown as Record<string, unknown>;
  // Set by the install after load (settle.ts), for a main frame whose init script did not run.
  const late = w[`${setup.key}Late`] === true;
  delete w[`${setup.key}Late`];
  const existing = w[setup.key] as ProgressRecord | undefined;
  // A document replaced in place (document.open/write) keeps its window: install again then.
  if (existing && (existing.root === null || existing.root === document.documentElement)) return null;
  const isTop = window.top === window && !(location.ancestorOrigins && location.ancestorOrigins.length > 0);
  // The top frame's initial about:blank is navigated away or written over (supplied HTML): an
  // instance started there would keep running on the written document next to the one
  // installed after load, and both would click.
  if (isTop && !late && location.href === "about:blank") return null;
  const record: ProgressRecord = { frames: {}, root: null };
  Object.defineProperty(window, setup.key, { value: record, configurable: true, enumerable: false, writable: false });

  // The record in place now: a listener of an earlier install of this window writes there too.
  const track = (p: FrameProgress): void => {
    const frames = (w[setup.key] as ProgressRecord).frames;
    const now = performance.now();
    const prev = frames[p.id];
    frames[p.id] = {
      ...p,
      changedAt: prev && prev.lifecycle === p.lifecycle ? prev.changedAt : now,
      attemptAt: prev && prev.attempts === p.attempts ? prev.attemptAt : now,
    };
  };
  if (isTop) {
    window.addEventListener(
      "message",
      (event) => {
        const data: unknown = event.data;
        const p = data && typeof data === "object" ? (data as Record<string, FrameProgress>)[setup.channel] : undefined;
        if (!p || typeof p.id !== "string" || typeof p.lifecycle !== "string") return;
        event.stopImmediatePropagation();
        track({
          id: p.id,
          main: false,
          lifecycle: p.lifecycle,
          attempts: Number(p.attempts) || 0,
          ...(typeof p.cmp === "string" ? { cmp: p.cmp } : {}),
          ...(typeof p.popup === "string" ? { popup: p.popup } : {}),
          ...(typeof p.result === "boolean" ? { result: p.result } : {}),
          ...(typeof p.done === "string" ? { done: p.done } : {}),
        });
      },
      true,
    );
  }

  const state: FrameProgress = { id: Math.random().toString(36).slice(2), main: isTop, lifecycle: "", attempts: 0 };
  const publish = (): void => {
    if (isTop) track({ ...state });
    else {
      try {
        window.top?.postMessage({ [setup.channel]: { ...state } }, "*");
      } catch {
        // a detached frame has no top any more
      }
    }
  };

  let initAsked = false;
  let receive: Receive | undefined;
  const send = (message: Message): Promise<void> => {
    switch (message.type) {
      case "init":
        initAsked = true;
        break;
      case "eval":
        // Snippets run inline (isMainWorld); a request here cannot be evaluated safely: answer no.
        receive?.({ type: "evalResp", id: message.id, result: false }).catch(() => undefined);
        break;
      case "report": {
        const s = message.state as { lifecycle: string; findCmpAttempts: number };
        if (s.lifecycle === "started") record.root = document.documentElement;
        if (s.lifecycle !== state.lifecycle || s.findCmpAttempts !== state.attempts) {
          state.lifecycle = s.lifecycle;
          state.attempts = s.findCmpAttempts;
          publish();
        }
        break;
      }
      case "cmpDetected":
        state.cmp ??= String(message.cmp);
        publish();
        break;
      case "popupFound":
        state.popup = String(message.cmp);
        publish();
        break;
      case "optOutResult":
      case "optInResult":
        state.result = message.result === true;
        publish();
        break;
      case "autoconsentDone":
        state.done = String(message.cmp);
        publish();
        break;
    }
    return Promise.resolve();
  };

  /** Rules that can run in this frame (the library would skip the others on every pass). */
  const frameRules = (): object => {
    const href = location.href;
    const runsHere = (pattern: string, main: boolean | undefined, frame: boolean | undefined): boolean => {
      if (isTop ? main === false : frame !== true) return false;
      if (!pattern) return true;
      try {
        return new RegExp(pattern).test(href);
      } catch {
        return false;
      }
    };
    if (setup.format === "compact") {
      const set = rules as { v: number; s: string[]; r: [number, string, number, string, number, ...unknown[]][] };
      const flag = (digit: number): boolean | undefined => (digit === 1 ? true : digit === 0 ? false : undefined);
      const r = set.r.filter((rule) => runsHere(rule[3], flag(Math.floor(rule[4] / 10) % 10), flag(rule[4] % 10)));
      return { autoconsent: [], compact: { v: set.v, s: set.s, r } };
    }
    const list = rules as { runContext?: { main?: boolean; frame?: boolean; urlPattern?: string } }[];
    return {
      autoconsent: list.filter((rule) =>
        runsHere(rule.runContext?.urlPattern ?? "", rule.runContext?.main, rule.runContext?.frame),
      ),
    };
  };

  const start = (): void => {
    receive = w.autoconsentReceiveMessage as Receive | undefined;
    delete w.autoconsentReceiveMessage;
    delete w.autoconsentSendMessage;
    if (!initAsked || typeof receive !== "function") return;
    receive({ type: "initResp", config: setup.config, rules: frameRules() }).catch(() => undefined);
  };
  return { send, start };
}

/** The init script: the agent, then the library's content script, then the init answer. */
export function agentScript(setup: Omit<AgentSetup, "key" | "channel">, rules: unknown, contentScript: string): string {
  const full: AgentSetup = { key: RECORD_KEY, channel: CHANNEL, ...setup };
  return `(function () {
"use strict";
const agent = (${consentAgent.toString()})(${JSON.stringify(full)}, ${JSON.stringify(rules)});
if (!agent) return;
window.autoconsentSendMessage = agent.send;
try {
${contentScript}
} finally {
  agent.start();
}
})();
`;
}
