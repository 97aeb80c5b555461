import { formatMs, formatRate } from '../stats.js';
import type { LoadResult } from './load.js';

/** The GraphQL targets: at 32 clients, half the floor's throughput on every query; the page's p99. */
export const GRAPHQL_TARGETS = {
  concurrency: 32,
  minRatio: 0.5,
  pageQuery: 'resources',
  pageP99Ms: 50,
} as const;

/** One cell of the table: a query at one concurrency, every side. */
export interface Measurement {
  readonly query: string;
  readonly connections: number;
  readonly graphql: LoadResult;
  readonly floor: LoadResult;
  /** The floor with its statement prepared, as the service prepares its own. */
  readonly floorPrepared: LoadResult;
  /** The floor behind the service's authentication. */
  readonly floorAuth: LoadResult;
}

export const ratioOf = (m: Measurement): number => m.graphql.requestsPerSecond / m.floor.requestsPerSecond;

/** One checked target: what, the measured figure, the bar and whether it is met. */
export interface GraphqlTargetCheck {
  readonly label: string;
  readonly measured: string;
  readonly target: string;
  readonly met: boolean;
}

/** The targets a row is checked against (none below 32 clients). */
export function checksOf(m: Measurement): GraphqlTargetCheck[] {
  if (m.connections !== GRAPHQL_TARGETS.concurrency) return [];
  const ratio = ratioOf(m);
  const checks: GraphqlTargetCheck[] = [
    {
      label: `${m.query} × ${m.connections}: graphql / floor rps`,
      measured: ratio.toFixed(2),
      target: `≥ ${GRAPHQL_TARGETS.minRatio.toFixed(2)}`,
      met: ratio >= GRAPHQL_TARGETS.minRatio,
    },
  ];
  if (m.query === GRAPHQL_TARGETS.pageQuery) {
    const p99 = m.graphql.p99;
    checks.push({
      label: `${m.query} × ${m.connections}: graphql p99`,
      measured: `${formatMs(p99)} ms`,
      target: `< ${GRAPHQL_TARGETS.pageP99Ms} ms`,
      met: p99 < GRAPHQL_TARGETS.pageP99Ms,
    });
  }
  return checks;
}

const HEADER = [
  'query',
  'clients',
  'graphql rps',
  'p50 ms',
  'p99 ms',
  '|',
  'floor rps',
  'p50 ms',
  'p99 ms',
  '|',
  'ratio',
  '|',
  'floor prep. rps',
  'ratio',
  '|',
  'floor+auth rps',
  'p99 ms',
  '|',
  'targets',
];

function cells(m: Measurement): string[] {
  const side = (r: LoadResult): string[] => [formatRate(r.requestsPerSecond), formatMs(r.p50), formatMs(r.p99)];
  const verdicts = checksOf(m).map((c) => (c.met ? 'MET' : 'NOT MET'));
  return [
    m.query,
    String(m.connections),
    ...side(m.graphql),
    '|',
    ...side(m.floor),
    '|',
    ratioOf(m).toFixed(2),
    '|',
    formatRate(m.floorPrepared.requestsPerSecond),
    (m.graphql.requestsPerSecond / m.floorPrepared.requestsPerSecond).toFixed(2),
    '|',
    formatRate(m.floorAuth.requestsPerSecond),
    formatMs(m.floorAuth.p99),
    '|',
    verdicts.join(', '),
  ];
}

/** The query × concurrency table, numbers right-aligned, `|` between the sides. */
export function formatGraphqlTable(measurements: readonly Measurement[]): string[] {
  const rows = measurements.map(cells);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/** Every target check as aligned report lines. */
export function formatGraphqlChecks(checks: readonly GraphqlTargetCheck[]): string[] {
  const width = Math.max(...checks.map((c) => c.label.length));
  return checks.map((c) => `  ${c.label.padEnd(width)}  ${c.measured.padStart(9)}  (target ${c.target})  ${c.met ? 'MET' : 'NOT MET'}`);
}
