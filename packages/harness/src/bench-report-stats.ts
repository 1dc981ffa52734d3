/**
 * Nearest-rank percentile of `samples` (`p` in 0..100): the smallest sample with at least p% of
 * the samples at or below it, so the result is always a measured value, never an interpolation.
 * p50 of an even count is the lower of the two middle samples. NaN when there are no samples.
 * Every benchmark takes its p50/p90/p99/median from here so that numbers compare across benches.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}
