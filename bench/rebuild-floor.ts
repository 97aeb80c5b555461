import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { generateSigningJwk } from '../src/auth/tokens.js';
import { createPostgresEventStore } from '../src/events/store/postgres.js';
import type { Logger } from '../src/log.js';
import { openPostgres } from './database.js';
import { benchCodec } from './fixtures.js';
import { seedTemplates } from './replay.js';
import { formatSeconds, percentile } from './stats.js';

const run = promisify(execFile);

/** Templates seeded: each has a created event and one follow-up, so 2 × this many events. */
const TEMPLATES = 50_000;
/** Pairs of runs, the sides taking turns (the median pair is reported). */
const PAIRS = 3;

/**
 * Runs `work` on a connection of its own to `url`, closed after; `started` is taken before the
 * connection opens, so a side's time includes it (as ours includes the CLI's).
 */
async function onClient<T>(url: string, work: (client: pg.Client, started: number) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  const started = performance.now();
  await client.connect();
  try {
    return await work(client, started);
  } finally {
    await client.end();
  }
}

/**
 * The floor of a rebuild of the templates read model, in SQL alone: the created events' fields cast
 * into a new table in one statement, then the same indexes as the real table (read from the catalog),
 * in one transaction. It applies no follow-up event and writes no link table: what no rebuild beats.
 */
function floor(url: string): Promise<number> {
  return onClient(url, async (client, started) => {
    try {
      const { rows } = await client.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'templates' ORDER BY indexname",
      );
      await client.query('BEGIN');
      await client.query(`CREATE TABLE floor_templates AS SELECT
        (data->>'id')::uuid AS id, data->>'name' AS name, data->>'template' AS template,
        coalesce(data->>'description', '') AS description,
        coalesce(ARRAY(SELECT jsonb_array_elements_text(data->'labels')), '{}') AS labels,
        coalesce((data->>'abstract')::boolean, false) AS abstract,
        coalesce(ARRAY(SELECT jsonb_array_elements_text(data->'cloudResourceTypes')), '{}') AS cloud_resource_types,
        coalesce(data->'configuration', '{}') AS configuration, data->>'status' AS status,
        data->>'documentationUrl' AS documentation_url, (data->>'ownerId')::uuid AS owner_id,
        (metadata->>'actorId')::uuid AS creator_id, stream_revision::int + 1 AS revision,
        recorded_at AS created_at, recorded_at AS updated_at, NULL::timestamptz AS deleted_at
      FROM events WHERE type = 'TemplateCreated'`);
      for (const [index, { indexdef }] of rows.entries()) {
        await client.query(
          indexdef
            .replace(/^CREATE (UNIQUE )?INDEX \S+/, `CREATE $1INDEX floor_templates_${String(index)}`)
            .replace(' ON public.templates ', ' ON floor_templates '),
        );
      }
      await client.query('COMMIT');
      return performance.now() - started;
    } finally {
      await client.query('DROP TABLE IF EXISTS floor_templates').catch(() => undefined);
    }
  });
}

/** How long a timed run waits for the server's background work to end before it starts anyway. */
const QUIET_TIMEOUT_MS = 60_000;

/**
 * Before each timed run: the server's background work done, so that neither side meets the other's
 * (or an earlier part's) leftovers. Ours folds and builds indexes on both cores, the floor works on
 * one, so ours loses more to anything else running: with a busy loop on one core, ours took 3.7–3.9 s
 * instead of 2.6–2.9 s and the floor 2.5–2.6 s instead of 2.2 s. A CHECKPOINT writes the dirty
 * buffers the run before left (the swapped-in tables and indexes) now rather than during the next
 * run; then it waits until no autovacuum worker runs (at most QUIET_TIMEOUT_MS). Answers how long it
 * waited, and for what.
 */
function quiet(url: string): Promise<string> {
  return onClient(url, async (client, started) => {
    // CHECKPOINT needs a superuser or pg_checkpoint: a bench user without either times the runs without it.
    const checkpoint = await client.query('CHECKPOINT').then(
      () => 'checkpoint',
      (error: unknown) => `no checkpoint (${error instanceof Error ? error.message : String(error)})`,
    );
    let workers = 0;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'",
      );
      const running = rows[0]?.n ?? 0;
      workers = Math.max(workers, running);
      if (running === 0 || performance.now() - started > QUIET_TIMEOUT_MS) break;
      await delay(250);
    }
    const waited = formatSeconds(performance.now() - started);
    return workers === 0 ? `${checkpoint} ${waited}` : `${checkpoint} and ${String(workers)} autovacuum worker(s) ${waited}`;
  });
}

/** `npm run projections -- rebuild templates` as an operator runs it (the built CLI), timed from start to exit. */
async function ours(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  await run(process.execPath, [path.resolve('scripts/cli.mjs'), 'projections', 'rebuild', 'templates'], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return performance.now() - started;
}

const load = (): string => os.loadavg()[0]?.toFixed(2) ?? '?';

/**
 * The rebuild part: 100,000 template events in a fresh database, then the rebuild through the built
 * CLI and the SQL floor, taking turns; prints each pair and the median ratio (floor time ÷ ours:
 * 1.0 would be as fast as SQL alone).
 */
/** The rebuild's figures: the median of floor ÷ ours, each pair's, and the load when it began. */
export interface RebuildFloorResult {
  readonly median: number;
  readonly pairs: readonly number[];
  readonly load: readonly number[];
}

export async function benchRebuildFloor(adminUrl: string, log: Logger, say: (line: string) => void): Promise<RebuildFloorResult> {
  const startLoad = os.loadavg();
  const database = await openPostgres(adminUrl, log);
  try {
    const codec = benchCodec();
    const store = createPostgresEventStore({ pool: database.pool, log });
    const seeded = await seedTemplates(store, codec, TEMPLATES);
    await store.close();
    // The seeded log vacuumed and analyzed now, as a log that has been live for a while is: otherwise
    // autovacuum does it when it next visits this database, in the middle of some side's timed run.
    await database.pool.query('VACUUM (ANALYZE) events');
    say(`[rebuild] seeded ${String(seeded.events)} template events in ${formatSeconds(seeded.ms)} (load ${load()})`);
    const env = {
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('base64'),
      TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
      LOG_LEVEL: 'warn',
    };
    // The CLI reads events with the bench's codec key: the seeded events carry no encrypted field.
    await ours(env); // a first rebuild, untimed: the build check and the database's caches warm up
    const ratios: number[] = [];
    for (let pair = 1; pair <= PAIRS; pair++) {
      const loadBefore = load();
      const [first, second] = pair % 2 === 1 ? ['ours', 'floor'] : ['floor', 'ours'];
      const times: Record<string, number> = {};
      const waits: string[] = [];
      for (const side of [first, second]) {
        waits.push(`${side}: ${await quiet(database.url)}`);
        times[side] = side === 'ours' ? await ours(env) : await floor(database.url);
      }
      const ratio = (times.floor ?? 0) / (times.ours ?? 1);
      ratios.push(ratio);
      say(
        `[rebuild] pair ${String(pair)}: ours ${formatSeconds(times.ours ?? 0)}, SQL floor ${formatSeconds(times.floor ?? 0)}, ` +
          `floor ÷ ours ${ratio.toFixed(2)} (load ${loadBefore} → ${load()}; waited before each: ${waits.join(', ')})`,
      );
    }
    const result = percentile(
      [...ratios].sort((a, b) => a - b),
      50,
    );
    say(`[rebuild] median floor ÷ ours: ${result.toFixed(2)} (target ≥ 0.80)`);
    return { median: result, pairs: ratios, load: startLoad };
  } finally {
    await database.close();
  }
}
