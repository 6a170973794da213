import { EventEmitter } from "node:events";
import WebSocket from "ws";

/** A DevTools session on one target (a page), over a `DevtoolsLink`. */
export interface DevtoolsSession {
  // biome-ignore lint/suspicious/noExplicitAny: each method has its own result; callers type what they read
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  // biome-ignore lint/suspicious/noExplicitAny: each event has its own payload
  on(event: string, listener: (params: any) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  off(event: string, listener: (params: any) => void): unknown;
  /** Ends the session (the page stays); calls still waiting fail. */
  detach(): Promise<void>;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  method: string;
  sessionId: string | undefined;
}

/** Why a DevTools call failed: Chromium's answer, or (`gone`) the link or session ending under it. */
export class DevtoolsError extends Error {
  override readonly name = "DevtoolsError";
  constructor(
    message: string,
    readonly gone = false,
  ) {
    super(message);
  }
}

/**
 * A DevTools client of our own on a browser's WebSocket endpoint, beside the driver's: flattened
 * sessions on targets the driver made, and nothing else. The driver's own sessions (Playwright's
 * `CDPSession`) carry every call through its client, its dispatcher and a stack capture: about
 * 0.3-0.5 ms of Node per call, where this takes under 0.1. A reused page's reset and its capture
 * are a dozen calls a render. No compression is offered (Chromium would deflate every screenshot).
 */
export class DevtoolsLink {
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly sessions = new Map<string, EventEmitter>();
  private closedWith: Error | undefined;
  private readonly ended = new EventEmitter();

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => this.receive(data));
    ws.on("close", () => this.fail(new DevtoolsError("The DevTools connection closed", true)));
    ws.on("error", () => ws.terminate());
  }

  /** Connects to `wsEndpoint` (`ws://…/devtools/browser/<id>`); rejects after `timeoutMs`. */
  static connect(wsEndpoint: string, timeoutMs = 30_000): Promise<DevtoolsLink> {
    const ws = new WebSocket(wsEndpoint, {
      perMessageDeflate: false,
      maxPayload: 512 * 1024 * 1024,
      handshakeTimeout: timeoutMs,
    });
    return new Promise((resolve, reject) => {
      ws.once("open", () => {
        ws.off("error", reject);
        resolve(new DevtoolsLink(ws));
      });
      ws.once("error", reject);
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Calls `listener` once when the connection ends (closed here, or by the browser). */
  onClose(listener: () => void): void {
    if (this.closedWith) queueMicrotask(listener);
    else this.ended.once("close", listener);
  }

  /** A call on the browser itself (no target): `Target.createTarget`, `Browser.getVersion`… */
  // biome-ignore lint/suspicious/noExplicitAny: as DevtoolsSession.send
  send(method: string, params?: Record<string, unknown>): Promise<any> {
    return this.call(method, params, undefined);
  }

  /** Attaches to `targetId` (a page's target) with a session of its own. */
  async attach(targetId: string): Promise<DevtoolsSession> {
    const { sessionId } = (await this.call("Target.attachToTarget", { targetId, flatten: true }, undefined)) as {
      sessionId: string;
    };
    const events = new EventEmitter();
    events.setMaxListeners(0);
    this.sessions.set(sessionId, events);
    return {
      send: (method, params) => this.call(method, params, sessionId),
      on: (event, listener) => events.on(event, listener),
      off: (event, listener) => events.off(event, listener),
      detach: async () => {
        if (!this.sessions.has(sessionId)) return;
        await this.call("Target.detachFromTarget", { sessionId }, undefined).catch(() => undefined);
        this.endSession(sessionId);
      },
    };
  }

  /** Closes the connection; every call still waiting fails. */
  close(): void {
    this.fail(new DevtoolsError("The DevTools connection was closed", true));
    this.ws.terminate();
  }

  // biome-ignore lint/suspicious/noExplicitAny: as DevtoolsSession.send
  private call(method: string, params: Record<string, unknown> | undefined, sessionId: string | undefined): Promise<any> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (sessionId !== undefined && !this.sessions.has(sessionId)) {
      return Promise.reject(new DevtoolsError(`${method}: the page's DevTools session ended`, true));
    }
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method, sessionId });
      this.ws.send(JSON.stringify({ id, method, params: params ?? {}, sessionId }));
    });
  }

  private receive(data: WebSocket.RawData): void {
    let message: {
      id?: number;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: { message: string };
      sessionId?: string;
    };
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.error) call.reject(new DevtoolsError(`${call.method}: ${message.error.message}`));
      else call.resolve(message.result);
      return;
    }
    if (message.method === "Target.detachedFromTarget") {
      const { sessionId } = message.params as { sessionId: string };
      this.endSession(sessionId);
      return;
    }
    if (message.sessionId !== undefined && message.method)
      this.sessions.get(message.sessionId)?.emit(message.method, message.params);
  }

  /** Forgets a session; its calls still waiting fail. */
  private endSession(sessionId: string): void {
    if (!this.sessions.delete(sessionId)) return;
    for (const [id, call] of this.pending) {
      if (call.sessionId !== sessionId) continue;
      this.pending.delete(id);
      call.reject(new DevtoolsError(`${call.method}: the page's DevTools session ended`, true));
    }
  }

  private fail(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
    this.sessions.clear();
    this.ended.emit("close");
  }
}
