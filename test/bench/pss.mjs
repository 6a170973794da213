// Memory of a process tree: the sum of Pss (proportional set size: shared pages split between their
// users) over a process and its descendants, read from /proc/<pid>/smaps_rollup. Linux only.

import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

/** Parent pid of a `/proc/<pid>/stat` line (the command name may hold spaces and parentheses); -1 for zombies. */
function parentOf(stat) {
  const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return state === "Z" ? -1 : Number(ppid);
}

function childrenMap(entries) {
  const children = new Map();
  for (const [pid, ppid] of entries) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  return children;
}

function walk(root, children) {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** `root` and every process descending from it (by ppid), read asynchronously. */
export async function processTree(root) {
  const pids = (await readdir("/proc")).filter((n) => /^\d+$/.test(n)).map(Number);
  const entries = await Promise.all(
    pids.map((pid) =>
      readFile(`/proc/${pid}/stat`, "utf8").then(
        (stat) => [pid, parentOf(stat)],
        () => [pid, -1], // gone meanwhile
      ),
    ),
  );
  return walk(root, childrenMap(entries));
}

/** Same as `processTree`, synchronously (for exit handlers). */
export function processTreeSync(root) {
  const entries = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      entries.push([Number(name), parentOf(readFileSync(`/proc/${name}/stat`, "utf8"))]);
    } catch {
      // the process ended meanwhile
    }
  }
  return walk(root, childrenMap(entries));
}

/** Sum of Pss over the tree of `root`, in kB. */
export async function treePssKb(root) {
  const sizes = await Promise.all(
    (await processTree(root)).map((pid) =>
      readFile(`/proc/${pid}/smaps_rollup`, "utf8").then(
        (text) => Number(/^Pss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0),
        () => 0,
      ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/** Samples the tree of `root` every `everyMs` until `stop()`, which answers the peak in MB. */
export function samplePss(root, everyMs = 500) {
  let peakKb = 0;
  let busy = false;
  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      peakKb = Math.max(peakKb, await treePssKb(root));
    } finally {
      busy = false;
    }
  };
  void sample();
  const timer = setInterval(() => void sample(), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 5));
      await sample();
      return peakKb / 1024;
    },
  };
}

/** Descendants of this process still alive (browsers, servers), not this process itself. */
export async function liveDescendants() {
  return (await processTree(process.pid)).slice(1);
}

/** SIGKILLs every descendant of this process: the last resort on exit and between rows. */
export function killDescendantsSync() {
  for (const pid of processTreeSync(process.pid).slice(1).reverse()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
