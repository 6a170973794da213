import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { CLI } from "../helpers/cluster.js";

/**
 * What the fault tests share: a project, an API client, loopback servers that can go down and
 * come back on the same port, and the server as operators run it (the built CLI, a child process).
 */

export const PROJECT = {
  id: "faults",
  secretKey: "sk_test_faults_0123456789abcdef",
  publishableKey: "pk_test_faults",
  webhookSecret: "whsec_faults_0123456789abcdef",
  rateLimit: { requests: 1_000_000, perSeconds: 60 },
};

/** An API answer: status, headers, parsed JSON body (when it is JSON) and text. */
export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
  body: any;
  text: string;
}

/** Calls the API with the fault project's key and a JSON body (POST) or none (GET). */
export async function api(base: string, path: string, json?: unknown, signal?: AbortSignal): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${PROJECT.secretKey}` };
  if (json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    redirect: "manual",
    signal,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** One request a loopback server received, with the status it answered. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A loopback HTTP server that records what it gets and can stop listening and come back on its port. */
export interface Loopback {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Stops listening and cuts open connections: clients get "connection refused" until `reopen`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

/** Answers each request with `handler`'s status and body (text/html unless a type is given). */
export async function loopback(
  handler: (req: IncomingMessage, body: string) => { status: number; body?: string; type?: string },
): Promise<Loopback> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const make = (): Server => {
    const server = createServer((req, res: ServerResponse) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const answer = handler(req, body);
        received.push({ path: req.url ?? "", headers: req.headers, body, status: answer.status });
        res.writeHead(answer.status, { "content-type": answer.type ?? "text/html" }).end(answer.body ?? "");
      });
    });
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    return server;
  };
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  let server: Server | undefined = make();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  const down = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    down,
    async reopen() {
      if (server) return;
      const next = make();
      await listen(next, port);
      server = next;
    },
    close: down,
  };
}

/** Polls `check` every `everyMs` until it returns true; fails naming `what` after `timeoutMs` (a bound against hangs, not a speed check). */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 300_000,
  everyMs = 200,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A `renderkit serve` child process started from the built CLI. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last 20,000 characters it wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL (what a crash or the OOM killer does), then waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (drain), then waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", () => r()));

/**
 * Writes `config` to `file` and runs `renderkit serve --config file` until `/health` answers at
 * `http://127.0.0.1:<config.port>`. `env` is added to the test runner's environment (TMPDIR...).
 */
export async function serveProcess(
  file: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  writeFileSync(file, JSON.stringify(config, null, 2));
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith("RENDERKIT_") && name !== "RENDERKIT_CHROMIUM") delete clean[name];
  const child = spawn(process.execPath, [CLI, "serve", "--config", file], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...clean, RENDERKIT_LOG_LEVEL: "warn", ...env },
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let text = "";
  const collect = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const proc: ServerProcess = {
    child,
    pid: child.pid ?? -1,
    output: () => text,
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited(child);
      clearTimeout(timer);
    },
  };
  const url = `http://127.0.0.1:${config.port}`;
  const end = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`renderkit serve exited with ${child.exitCode}:\n${text}`);
    const up = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return proc;
    if (Date.now() > end) {
      child.kill("SIGKILL");
      throw new Error(`renderkit serve did not answer /health:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
