import type { AppendResult } from './appends.js';
import type { ReplayResult, SeedResult } from './replay.js';
import { formatMs, formatRate, formatSeconds } from './stats.js';

/** Everything one store's run measured. */
export interface StoreResults {
  readonly version: string;
  readonly append1: AppendResult;
  readonly append8: AppendResult;
  readonly seed: SeedResult;
  readonly rebuild: ReplayResult;
  /** The same rebuild run again in the same process, twice: the faster (the first pays V8's warm-up). */
  readonly rebuildAgain: ReplayResult;
  readonly runner: ReplayResult;
}

/** A store's column: its results, or why there are none. */
export type StoreColumn = { readonly title: string } & ({ readonly results: StoreResults } | { readonly missing: string });

type Row = readonly [string, (r: StoreResults) => string];

const latencies = (a: AppendResult): string => `${formatMs(a.p50)} / ${formatMs(a.p99)}`;

const ROWS: readonly Row[] = [
  ['server version', (r) => r.version],
  ['append, 1 writer (events/s)', (r) => formatRate(r.append1.eventsPerSecond)],
  ['  per append p50 / p99 (ms)', (r) => latencies(r.append1)],
  ['append, 8 writers (events/s)', (r) => formatRate(r.append8.eventsPerSecond)],
  ['  per append p50 / p99 (ms)', (r) => latencies(r.append8)],
  ['replay, rebuildProjection (events/s)', (r) => formatRate(r.rebuild.eventsPerSecond)],
  ['  run again, the better of 2 (events/s)', (r) => formatRate(r.rebuildAgain.eventsPerSecond)],
  ['replay, runner catch-up (events/s)', (r) => formatRate(r.runner.eventsPerSecond)],
  ['  replayed events', (r) => formatRate(r.rebuild.events)],
  ['  rebuild / catch-up time', (r) => `${formatSeconds(r.rebuild.ms)} / ${formatSeconds(r.runner.ms)}`],
  ['  seeding time (untimed setup)', (r) => formatSeconds(r.seed.ms)],
];

/** The store × metric table, left column metric names, one right-aligned column per store. */
export function formatTable(columns: readonly StoreColumn[]): string[] {
  const cells = ROWS.map(([label, value]) => [label, ...columns.map((c) => ('results' in c ? value(c.results) : 'skipped'))]);
  const header = ['metric', ...columns.map((c) => c.title)];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('   ');
  const notes = columns.flatMap((c) => ('missing' in c ? [`${c.title}: ${c.missing}`] : []));
  return [line(header), rule, ...cells.map(line), ...notes];
}
