import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { EventCodec } from '../src/events/codec.js';
import { createPostgresEventStore } from '../src/events/store/postgres.js';
import type { StreamWrite } from '../src/events/store/port.js';
import type { Logger } from '../src/log.js';
import { migrations } from '../src/storage/migrations/index.js';
import { benchAppends, storeAppender, type Appender, type AppendResult } from './appends.js';
import { openPostgres } from './database.js';
import { openEmmett } from './emmett.js';
import { encode, templateCreated, templateStream } from './fixtures.js';
import { formatMs, formatRate, perSecond } from './stats.js';

/**
 * Appends on one PostgreSQL server, three sides taking turns: infraledger now (migration 026:
 * positions from transaction ids, per-stream locks), infraledger before (the same store code on a
 * database migrated only up to the global-lock append of migration 003) and Emmett
 * (`@event-driven-io/emmett-postgresql` itself). Each side gets a fresh database per measurement and
 * a pool as large as its writers; every writer appends single events to its own stream at an exact
 * expected revision. Then the log's growth: appends and $all reads with 10k, 100k and 1M events stored.
 */

/** The sides of the append bench. */
export const APPEND_SIDES = ['now', 'before', 'emmett'] as const;
export type AppendSide = (typeof APPEND_SIDES)[number];

/** Writers per measurement, and appends each (about 3,000 events per measurement). */
export const WRITER_COUNTS: readonly { writers: number; appends: number }[] = [
  { writers: 1, appends: 2000 },
  { writers: 8, appends: 300 },
  { writers: 32, appends: 100 },
];

/** One writer count's results per side (the sum of its rounds). */
export interface SideRow {
  readonly writers: number;
  readonly results: Readonly<Record<AppendSide, AppendResult>>;
  /** The load average (1 min) when the row was measured. */
  readonly load: number;
}

const BEFORE_MIGRATIONS = migrations.filter((m) => m.id < '026');

/** Opens a side on a fresh database, runs `work` with its appender, closes and drops it. */
async function withSide<T>(
  side: AppendSide,
  adminUrl: string,
  connections: number,
  log: Logger,
  work: (append: Appender, url: string) => Promise<T>,
): Promise<T> {
  const db = await openPostgres(adminUrl, log, {
    connections: connections + 2,
    migrations: side === 'emmett' ? [] : side === 'before' ? BEFORE_MIGRATIONS : undefined,
  });
  try {
    if (side === 'emmett') {
      const emmett = await openEmmett(db.url, connections);
      try {
        return await work(emmett.append, db.url);
      } finally {
        await emmett.close();
      }
    }
    const store = createPostgresEventStore({ pool: db.pool, log });
    try {
      return await work(storeAppender(store), db.url);
    } finally {
      await store.close();
    }
  } finally {
    await db.close();
  }
}

/** Adds up rounds of one side into one result (latency percentiles: the worse round's). */
function combine(runs: readonly AppendResult[]): AppendResult {
  const first = runs[0];
  if (!first) throw new Error('no rounds');
  const events = runs.reduce((n, r) => n + r.events, 0);
  const ms = runs.reduce((n, r) => n + r.ms, 0);
  return {
    ...first,
    events,
    ms,
    eventsPerSecond: perSecond(events, ms),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
  };
}

/** Every writer count, the sides taking turns (rotating who goes first), `rounds` times each. */
export async function benchAppendSides(
  adminUrl: string,
  codec: EventCodec,
  log: Logger,
  rounds: number,
  say: (line: string) => void,
): Promise<SideRow[]> {
  const rows: SideRow[] = [];
  for (const { writers, appends } of WRITER_COUNTS) {
    const runs: Record<AppendSide, AppendResult[]> = { now: [], before: [], emmett: [] };
    const load = os.loadavg()[0] ?? 0;
    for (let round = 0; round < rounds; round++) {
      const order = APPEND_SIDES.map((_, i) => APPEND_SIDES[(i + round) % APPEND_SIDES.length] as AppendSide);
      for (const side of order) {
        const result = await withSide(side, adminUrl, writers, log, async (append) => {
          await benchAppends(append, codec, Math.min(writers, 8), 20); // warm-up: connections, caches, JIT
          return benchAppends(append, codec, writers, appends);
        });
        runs[side].push(result);
        say(
          `[appends] ${writers} writer(s), round ${round + 1}, ${side}: ${formatRate(result.eventsPerSecond)} events/s, p50 ` +
            `${formatMs(result.p50)} ms, p99 ${formatMs(result.p99)} ms`,
        );
      }
    }
    rows.push({ writers, load, results: { now: combine(runs.now), before: combine(runs.before), emmett: combine(runs.emmett) } });
  }
  return rows;
}

/** Issue 20's append targets: at 8 and 32 writers, at least Emmett's rate with a p99 no higher than its. */
export function appendTargetLines(rows: readonly SideRow[]): string[] {
  return rows
    .filter((r) => r.writers >= 8)
    .map((r) => {
      const rate = r.results.now.eventsPerSecond / r.results.emmett.eventsPerSecond;
      const p99 = r.results.now.p99 / r.results.emmett.p99;
      return (
        `  ${r.writers} writers: now/Emmett ${rate.toFixed(2)} (target ≥ 1.00) ${rate >= 1 ? 'MET' : 'NOT MET'}; p99 now/Emmett ` +
        `${p99.toFixed(2)} (target ≤ 1.00) ${p99 <= 1 ? 'MET' : 'NOT MET'}`
      );
    });
}

/** The append table: each side's rate and latencies, and the ratios pair by pair. */
export function formatSideRows(rows: readonly SideRow[]): string[] {
  const cell = (r: AppendResult): string =>
    `${formatRate(r.eventsPerSecond).padStart(7)} ${`${formatMs(r.p50)}/${formatMs(r.p99)}`.padStart(11)}`;
  const lines = [
    'writers  load  |  now ev/s  p50/p99 ms  |  before ev/s  p50/p99  |  Emmett ev/s  p50/p99  |  now/Emmett  p99 now/Emmett  |  ' +
      'now/before',
  ];
  for (const row of rows) {
    const { now, before, emmett } = row.results;
    lines.push(
      `${String(row.writers).padStart(7)}  ${row.load.toFixed(1).padStart(4)}  |  ${cell(now)}  |  ${cell(before)}   |  ` +
        `${cell(emmett)}   |  ${(now.eventsPerSecond / emmett.eventsPerSecond).toFixed(2).padStart(10)}  ` +
        `${(now.p99 / emmett.p99).toFixed(2).padStart(14)}  |  ${(now.eventsPerSecond / before.eventsPerSecond).toFixed(2).padStart(10)}`,
    );
  }
  return lines;
}

/** One size of the growth measurement. */
export interface GrowthRow {
  readonly events: number;
  readonly fillMs: number;
  readonly now: AppendResult;
  readonly emmett: AppendResult;
  /** Reading 10,000 events of $all from the middle of the log, events/s (infraledger). */
  readonly readPerSecond: number;
  readonly load: number;
}

/** The sizes the growth measurement fills the log to. */
export const GROWTH_SIZES = [10_000, 100_000, 1_000_000] as const;
const FILL_CHUNK = 5000;

/** Fills a side's log with `events` template creations, in appends of 5,000 events each (not timed as appends). */
async function fill(
  side: 'now' | 'emmett',
  append: (writes: readonly StreamWrite[]) => Promise<void>,
  codec: EventCodec,
  from: number,
  to: number,
): Promise<void> {
  const now = new Date();
  for (let start = from; start < to; start += FILL_CHUNK) {
    const writes: StreamWrite[] = [];
    for (let i = start; i < Math.min(to, start + FILL_CHUNK); i++) {
      const id = `${side}-${i.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
      writes.push({ streamId: templateStream(id), expectedRevision: 'no_stream', events: [encode(codec, templateCreated(id, i), i, now)] });
    }
    await append(writes);
  }
}

/**
 * The log at 10k, 100k and 1M events: an infraledger database and an Emmett one grow together; at
 * each size both take 8 writers' appends (the sides taking turns) and infraledger reads 10,000 events
 * of $all from the middle.
 */
export async function benchGrowth(adminUrl: string, codec: EventCodec, log: Logger, say: (line: string) => void): Promise<GrowthRow[]> {
  const ours = await openPostgres(adminUrl, log, { connections: 10 });
  const theirs = await openPostgres(adminUrl, log, { connections: 2, migrations: [] });
  const store = createPostgresEventStore({ pool: ours.pool, log });
  const emmett = await openEmmett(theirs.url, 8);
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const emmettBulk = getPostgreSQLEventStore(theirs.url);
  const rows: GrowthRow[] = [];
  try {
    let stored = 0;
    for (const size of GROWTH_SIZES) {
      const started = performance.now();
      await fill(
        'now',
        async (writes) => {
          await store.appendMany(writes);
        },
        codec,
        stored,
        size,
      );
      // Emmett appends to one stream at a time: its log is filled with streams of 100 events, 8 at once.
      await fill(
        'emmett',
        async (writes) => {
          const events = writes.flatMap((w) => w.events.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata })));
          const streams = Array.from({ length: Math.ceil(events.length / 100) }, (_, i) => events.slice(i * 100, i * 100 + 100));
          for (let i = 0; i < streams.length; i += 8) {
            await Promise.all(
              streams
                .slice(i, i + 8)
                .map((chunk, k) => emmettBulk.appendToStream(`fill-${stored}-${i + k}-${Math.random().toString(36).slice(2)}`, chunk)),
            );
          }
        },
        codec,
        stored,
        size,
      );
      const fillMs = performance.now() - started;
      stored = size;
      await ours.pool.query('ANALYZE events');
      const load = os.loadavg()[0] ?? 0;
      const now = await benchAppends(storeAppender(store), codec, 8, 150);
      const theirsResult = await benchAppends(emmett.append, codec, 8, 150);
      let read = 0;
      // From about the middle: the position of the event halfway through (found before the clock starts).
      const { rows: mid } = await ours.pool.query<{ p: string }>(
        'SELECT global_position::text AS p FROM events ORDER BY global_position OFFSET $1 LIMIT 1',
        [Math.floor(size / 2)],
      );
      let after = mid[0] ? BigInt(mid[0].p) : undefined;
      const readStarted = performance.now();
      while (read < 10_000) {
        const page = await store.readAll({ after, limit: 1000 });
        if (page.length === 0) break;
        read += page.length;
        after = page.at(-1)?.position;
      }
      const readPerSecond = perSecond(read, performance.now() - readStarted);
      rows.push({ events: size, fillMs, now, emmett: theirsResult, readPerSecond, load });
      say(
        `[growth] ${formatRate(size)} events: now ${formatRate(now.eventsPerSecond)} events/s (p99 ${formatMs(now.p99)} ms), Emmett ` +
          `${formatRate(theirsResult.eventsPerSecond)} (p99 ${formatMs(theirsResult.p99)} ms), $all read ${formatRate(readPerSecond)} ` +
          `events/s`,
      );
    }
  } finally {
    await emmettBulk.close();
    await emmett.close();
    await store.close();
    await ours.close();
    await theirs.close();
  }
  return rows;
}

/** The growth table. */
export function formatGrowth(rows: readonly GrowthRow[]): string[] {
  return [
    'events stored  load  |  now ev/s (8 writers)  p50/p99 ms  |  Emmett ev/s  p50/p99 ms  |  now/Emmett  |  $all read ev/s',
    ...rows.map(
      (r) =>
        `${formatRate(r.events).padStart(13)}  ${r.load.toFixed(1).padStart(4)}  |  ${formatRate(r.now.eventsPerSecond).padStart(20)}  ${`${formatMs(r.now.p50)}/${formatMs(r.now.p99)}`.padStart(10)}  |  ${formatRate(r.emmett.eventsPerSecond).padStart(11)}  ${`${formatMs(r.emmett.p50)}/${formatMs(r.emmett.p99)}`.padStart(10)}  |  ${(r.now.eventsPerSecond / r.emmett.eventsPerSecond).toFixed(2).padStart(10)}  |  ${formatRate(r.readPerSecond).padStart(15)}`,
    ),
  ];
}
