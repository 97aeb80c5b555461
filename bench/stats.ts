/** Nearest-rank percentile (p in 0–100) of samples already sorted ascending; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Events per second for `events` done in `ms` milliseconds. */
export const perSecond = (events: number, ms: number): number => (ms > 0 ? (events * 1000) / ms : Number.NaN);

/** A rate with thousands separators and no decimals, e.g. `12,345`. */
export const formatRate = (rate: number): string => (Number.isFinite(rate) ? Math.round(rate).toLocaleString('en-US') : 'n/a');

/** Milliseconds with two decimals below 10 ms and one above, e.g. `0.84` or `12.3`. */
export const formatMs = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(ms < 10 ? 2 : 1) : 'n/a');

/** Seconds with one decimal, e.g. `4.2 s`. */
export const formatSeconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
