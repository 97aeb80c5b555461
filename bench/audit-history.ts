/**
 * `npx tsx bench/audit-history.ts [postgres-url]`: what the audit log in words (verbs, names,
 * before → after diffs; src/projections/audit-history.ts) costs a replay of the audit projection.
 * Rebuilds the audit log over the same template events with the projection as it is ("history":
 * one extra SELECT and upsert of the remembered entities per batch) and with the rows alone ("rows
 * only": each event's row, no memory of the entity, as before migration 022), alternating the sides
 * so drift in the machine's load hits both; prints each run and the ratio of the medians.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createPostgresEventStore } from '../src/events/store/postgres.js';
import { createLogger } from '../src/log.js';
import { allEventDefinitions } from '../src/events/catalog.js';
import { auditLogProjection, auditRowOf, INTERNAL_EVENT_TYPES } from '../src/projections/audit-log.js';
import type { Projection } from '../src/projections/projection.js';
import { rebuildProjection } from '../src/projections/rebuild.js';
import { openPglite, openPostgres, type BenchDatabase } from './database.js';
import { benchCodec } from './fixtures.js';
import { seedTemplates } from './replay.js';
import { formatRate } from './stats.js';

const TEMPLATES = 20_000; // × 2 events each
const ROUNDS = 3;

const definitions = new Map(allEventDefinitions.filter((d) => !INTERNAL_EVENT_TYPES.has(d.type)).map((d) => [d.type, d]));
const COLUMNS =
  'id, position, at, actor_id, action, entity_type, entity_id, changes, correlation_id, causation_id, stream_id, verb, entity_name, ' +
  'diff, reason';

/** The audit projection without its memory of entities: each row from its event alone. */
const rowsOnly: Projection = {
  name: 'audit_log',
  tables: ['audit_log'],
  handles: auditLogProjection.handles,
  async applyBatch(tx, events) {
    const rows = events.map((e) => {
      const { fields: _fields, ...row } = auditRowOf(e, definitions.get(e.event.type));
      return row;
    });
    await tx.query(
      `INSERT INTO audit_log (${COLUMNS}) SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
        id uuid, position bigint, at timestamptz, actor_id uuid, action text, entity_type text, entity_id text,
        changes jsonb, correlation_id text, causation_id text, stream_id text, verb text, entity_name text, diff jsonb, reason text)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  },
};

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function run(db: BenchDatabase): Promise<void> {
  const log = createLogger({ level: 'silent' });
  const codec = benchCodec();
  const store = createPostgresEventStore({ pool: db.pool, log });
  try {
    const seed = await seedTemplates(store, codec, TEMPLATES);
    await db.pool.query('ANALYZE');
    const rates: Record<'rows only' | 'history', number[]> = { 'rows only': [], history: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so neither always runs on a warmer cache.
      const sides = round % 2 === 0 ? (['rows only', 'history'] as const) : (['history', 'rows only'] as const);
      for (const side of sides) {
        await db.pool.query('TRUNCATE audit_entities');
        const started = performance.now();
        const result = await rebuildProjection({ pool: db.pool, store, codec, log }, side === 'history' ? auditLogProjection : rowsOnly);
        const rate = (result.events * 1000) / (performance.now() - started);
        rates[side].push(rate);
        console.log(`[${db.kind}] round ${round + 1} ${side.padEnd(9)} ${formatRate(result.events)} events, ${formatRate(rate)} events/s`);
      }
    }
    const ratio = median(rates.history) / median(rates['rows only']);
    console.log(
      `[${db.kind}] ${formatRate(seed.events)} template events: rows only ${formatRate(median(rates['rows only']))} events/s, history ` +
        `${formatRate(median(rates.history))} events/s (median of ${ROUNDS}); history/rows only = ${ratio.toFixed(2)}`,
    );
  } finally {
    await store.close();
  }
}

console.log(
  `audit history replay bench; load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} CPUs`,
);
const pglite = await openPglite(createLogger({ level: 'silent' }));
try {
  await run(pglite);
} finally {
  await pglite.close();
}
const url = process.argv[2];
if (url) {
  const postgres = await openPostgres(url, createLogger({ level: 'silent' }));
  try {
    await run(postgres);
  } finally {
    await postgres.close();
  }
}
console.log(
  `load after: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
