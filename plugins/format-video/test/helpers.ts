import { readdirSync, readFileSync } from "node:fs";

/** Live ffmpeg processes whose parent is this process (Linux /proc). */
export function ffmpegChildren(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid ..."; comm may contain spaces.
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (comm === "ffmpeg" && state !== "Z" && Number(ppid) === process.pid) out.push(Number(entry));
  }
  return out;
}

/** Polls until no ffmpeg child is left (or `ms` pass); returns those left. */
export async function noFfmpegLeft(ms = 5_000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = ffmpegChildren();
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = ffmpegChildren();
  }
  return left;
}
