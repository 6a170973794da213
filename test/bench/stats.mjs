/** Small helpers shared by the benchmarks: timing loops and percentile tables. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Runs `task` `total` times with `concurrency` workers; returns throughput and latency percentiles.
 * The first failure stops every worker (no task left running) and is thrown once all have stopped.
 */
export async function measure(total, concurrency, task) {
  const latencies = [];
  let next = 0;
  let failure;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < total && !failure) {
        next++;
        const t = performance.now();
        try {
          await task(worker);
        } catch (error) {
          failure ??= { error };
          return;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  if (failure) throw failure.error;
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

export function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((v, i) => String(v).padEnd(widths[i])).join("  ");
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(columns.map((c) => r[c])))].join("\n");
}
