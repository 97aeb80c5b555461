import { MARK_NOT_APPENDING } from '../storage/not-appending.js';
import { withTransaction, type SqlPool } from '../storage/pool.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import type { EventStore, RecordedEvent } from '../events/store/port.js';
import type { Logger } from '../log.js';
import type { Projection, ProjectionReplay, ReplayTransaction, ReplayTuning } from './projection.js';
import { runPool } from '../run-pool.js';
import { applyEvents, PoisonEvent, projectionLockKey } from './apply.js';
import { isCatalogProjection } from './catalog-projection.js';
import { foldStatement, type SqlFoldSpec } from './sql-fold.js';

/** Replay pages are larger than live batches: nobody waits on a rebuild's individual events. */
export const REBUILD_BATCH = 5000;

interface IndexDefinition {
  readonly name: string;
  readonly table: string;
  readonly definition: string;
  readonly unique: boolean;
  readonly primary: boolean;
}

/** The live tables' indexes, so the shadow copies get the same ones under the same names. */
async function indexDefinitions(pool: SqlPool, tables: readonly string[]): Promise<IndexDefinition[]> {
  const { rows } = await pool.query<IndexDefinition>(
    `SELECT c.relname AS name, t.relname AS "table", pg_get_indexdef(i.indexrelid) AS definition,
            i.indisunique AS unique, i.indisprimary AS primary
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND t.relname = ANY($1::text[])
      ORDER BY t.relname, c.relname`,
    [tables],
  );
  return rows;
}

function indexStatements(index: IndexDefinition, schema: string): string[] {
  const create = index.definition.replace(` ON public.${index.table} `, ` ON ${schema}.${index.table} `);
  if (create === index.definition) throw new Error(`cannot retarget index ${index.name}: ${index.definition}`);
  return index.primary
    ? [create, `ALTER TABLE ${schema}.${index.table} ADD CONSTRAINT ${index.name} PRIMARY KEY USING INDEX ${index.name}`]
    : [create];
}

/** Index builds a rebuild runs at the same time on PostgreSQL. */
const PARALLEL_INDEX_BUILDS = 2;

/**
 * Builds the shadow tables' remaining indexes, on PostgreSQL several at a time, each on a connection
 * of its own: a build uses one backend's CPU, and the trigram indexes take most of a rebuild's time
 * after its replay (PGlite, one connection, builds them in turn). Longest first, by kind: GIN builds
 * are several times slower than B-tree ones, so they are shared out before the short ones.
 */
async function buildIndexes(pool: SqlPool, builds: readonly string[][]): Promise<void> {
  const queue = [...builds].sort((a, b) => Number(/ USING gin /i.test(b[0] ?? '')) - Number(/ USING gin /i.test(a[0] ?? '')));
  // One text, one implicit transaction, marked: a build holds no reader of `$all` back. Each build
  // keeps to its own backend: parallel workers on top of the builds side by side made them ≈ 10%
  // slower on two cores (the builds already share the cores out).
  const parallel = pool.dialect === 'postgres';
  const setup = parallel ? [MARK_NOT_APPENDING, 'SET LOCAL max_parallel_maintenance_workers = 0'] : [MARK_NOT_APPENDING];
  await runPool(queue.length, parallel ? PARALLEL_INDEX_BUILDS : 1, (i) =>
    pool.query([...setup, ...(queue[i] ?? [])].join(';\n')).then(() => undefined),
  );
}

/** What a rebuild needs. */
export interface RebuildDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  /** Events per page read (default REBUILD_BATCH); without a `replay`, each page is applied in a transaction of its own. */
  readonly batchSize?: number;
  /**
   * Called after each replayed batch: events replayed so far, and how many there were to replay when
   * the replay began (undefined beyond PROGRESS_COUNT_LIMIT).
   */
  readonly onProgress?: (replayed: number, total: number | undefined) => void;
  /** How the projection's replay trades memory for early writes (its defaults when absent). */
  readonly replayTuning?: ReplayTuning;
  /**
   * Whether a projection that has a fold in SQL (catalog entities without secrets) is rebuilt with it
   * on PostgreSQL and PGlite (default true). Tests set it false to take the replay in Node, which is
   * what a rebuild falls back to on its own when events predate their current schema.
   */
  readonly foldInSql?: boolean;
}

/** A rebuild counts the events it will replay (for its progress report) up to this many. */
const PROGRESS_COUNT_LIMIT = 50_000_000;
/** What a rebuild did. */
export interface RebuildResult {
  readonly projection: string;
  readonly events: number;
  readonly position: bigint | undefined;
  /** How the events were folded: in SQL by the database, or replayed in Node. */
  readonly how: 'sql' | 'replay';
}

/**
 * Replays every event into empty copies of the projection's tables in a shadow schema, then swaps
 * them in under the projection's lock and moves its checkpoint to where the replay ended. Reads keep
 * answering from the old tables the whole time; the live runner resyncs from the new checkpoint and
 * applies whatever arrived during the swap. A failed (poisoned) projection starts running again.
 */
export async function rebuildProjection(deps: RebuildDeps, projection: Projection): Promise<RebuildResult> {
  if (!/^[a-z_]+$/.test(projection.name)) throw new TypeError(`projection name ${projection.name} is not a safe schema name`);
  const release = await holdRebuildLock(deps.pool, projection.name);
  try {
    return await replayAndSwap(deps, projection);
  } finally {
    await release();
  }
}

/** Shadow schemas are `rebuild_<projection>`; nothing else in the database is named so. */
const SHADOW_PREFIX = 'rebuild_';

/** The session lock a rebuild holds on PostgreSQL while its shadow schema exists (distinct from the runner's batch lock). */
const rebuildLockKey = (projection: string): number => projectionLockKey(`${SHADOW_PREFIX}${projection}`);

/**
 * On PostgreSQL another process may rebuild at the same time: the rebuild holds a session lock on a
 * connection of its own until it ends, so the clean-up below can tell a live shadow schema from one a
 * killed rebuild left. Embedded PGlite has one process (the data directory is locked), so a shadow
 * schema found at start-up is always abandoned.
 */
async function holdRebuildLock(pool: SqlPool, projection: string): Promise<() => Promise<void>> {
  if (pool.dialect !== 'postgres') return () => Promise.resolve();
  const client = await pool.connect();
  const key = rebuildLockKey(projection);
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
  if (!rows[0]?.locked) {
    client.release();
    throw new Error(`projection ${projection} is being rebuilt by another process`);
  }
  return async () => {
    try {
      await client.query('SELECT pg_advisory_unlock($1)', [key]);
      client.release();
    } catch {
      client.release(true); // the connection is gone, and its session lock with it
    }
  };
}

/**
 * Drops the shadow schemas of rebuilds that were killed before their swap (a crash, kill -9), so they
 * do not wait for the next rebuild of the same projection. Run at start-up; a rebuild still running in
 * another process keeps its schema. Returns the schemas it dropped.
 */
export async function dropAbandonedRebuilds(pool: SqlPool, log: Logger): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%' ORDER BY nspname",
  );
  const dropped: string[] = [];
  for (const { name } of rows) {
    const projection = name.slice(SHADOW_PREFIX.length);
    if (!/^[a-z_]+$/.test(projection)) continue;
    let release: () => Promise<void>;
    try {
      release = await holdRebuildLock(pool, projection);
    } catch {
      continue; // being rebuilt right now
    }
    try {
      await pool.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      dropped.push(name);
      log.warn({ schema: name, projection }, 'dropped the shadow schema of an interrupted rebuild');
    } finally {
      await release();
    }
  }
  return dropped;
}

async function replayAndSwap(deps: RebuildDeps, projection: Projection): Promise<RebuildResult> {
  const shadow = `${SHADOW_PREFIX}${projection.name}`;
  const started = Date.now();
  const indexes = await indexDefinitions(deps.pool, projection.tables);
  const fold = sqlFoldOf(deps, projection);
  // Empty copies, without indexes: a fold in SQL only inserts, so every index is built after it; a
  // replay in Node upserts, so it gets the unique ones first. Building the others after the rows are
  // in is several times cheaper than maintaining them row by row.
  await deps.pool.query(
    [
      // Every transaction of a rebuild only writes read tables: none holds a reader of `$all` back.
      MARK_NOT_APPENDING,
      `DROP SCHEMA IF EXISTS ${shadow} CASCADE`,
      `CREATE SCHEMA ${shadow}`,
      ...projection.tables.map(
        (t) => `CREATE TABLE ${shadow}.${t} (LIKE public.${t} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`,
      ),
    ].join(';\n'),
  );
  const inShadow: ReplayTransaction = async (work) =>
    withTransaction(deps.pool, async (tx) => {
      // Shadow rows are rebuilt from durable events: a crash only costs the rebuild, never a commit's wait.
      await tx.query(`${MARK_NOT_APPENDING}; SET LOCAL search_path TO ${shadow}, public; SET LOCAL synchronous_commit = off`);
      await work(tx);
    });
  let replay: ProjectionReplay | undefined;
  let filled: Filled | undefined;
  try {
    filled = fold ? await foldInSql(deps, projection, fold, shadow) : undefined;
    let remaining = indexes;
    if (!filled) {
      await deps.pool.query(
        [MARK_NOT_APPENDING, ...indexes.filter((i) => i.unique).flatMap((i) => indexStatements(i, shadow))].join(';\n'),
      );
      remaining = indexes.filter((i) => !i.unique);
      replay = projection.replay?.(inShadow, deps.replayTuning);
      filled = await fillShadow(deps, projection, replay, inShadow);
    }
    await buildIndexes(
      deps.pool,
      remaining.map((i) => indexStatements(i, shadow)),
    );
    await swapIn(deps.pool, projection, shadow, filled.position);
  } catch (error) {
    // Nothing of a failed rebuild outlives it (a background write would otherwise end after the lock
    // is released), and its shadow schema goes with it while the database still answers (otherwise
    // the next start drops it: dropAbandonedRebuilds).
    await replay?.abandon();
    await deps.pool.query(`DROP SCHEMA IF EXISTS ${shadow} CASCADE`).catch(() => undefined);
    throw error;
  }
  deps.log.info(
    { projection: projection.name, events: filled.events, position: String(filled.position), how: filled.how, ms: Date.now() - started },
    'projection rebuilt',
  );
  return { projection: projection.name, ...filled };
}

/**
 * The projection's fold in SQL, when this rebuild can use it: the events are in the same database
 * (not EventStoreDB) and none of the projection's event types carries encrypted fields (only Node
 * holds the key).
 */
function sqlFoldOf(deps: RebuildDeps, projection: Projection): SqlFoldSpec | undefined {
  if (deps.foldInSql === false || deps.store.kind === 'eventstoredb') return undefined;
  if (!isCatalogProjection(projection) || !projection.sqlFold) return undefined;
  const plain = [...projection.handles].every((type) => deps.codec.definition(type)?.secretPaths.length === 0);
  return plain ? projection.sqlFold : undefined;
}

/**
 * Parts a fold in SQL runs at the same time on PostgreSQL, each folding the streams whose id hashes
 * to it on a connection of its own (one backend's CPU each).
 */
const FOLD_PARTS = 2;
/** Memory each fold's sort may use before it spills to disk (a part of 50,000 rows sorts in ≈ 35 MB). */
const FOLD_WORK_MEM = '128MB';

/** Events of the projection that are not at their current schema version: they need their upcasters, in Node. */
class StaleEvents extends Error {
  constructor(readonly count: number) {
    super(`${String(count)} events predate their current schema version`);
  }
}

/**
 * Folds every event up to the head into the shadow tables in SQL (sql-fold.ts), in parts at once.
 * Answers undefined, with the shadow tables emptied again, when the events need the replay in Node
 * instead: some predate their current schema version (their upcasters run in Node), or the
 * statement failed on an event it could not cast (the replay then names the event).
 */
async function foldInSql(deps: RebuildDeps, projection: Projection, fold: SqlFoldSpec, shadow: string): Promise<Filled | undefined> {
  const head = await deps.store.headPosition();
  if (head === undefined) return { position: undefined, events: 0, how: 'sql' };
  const types = [...projection.handles];
  const versions = new Map(types.map((type) => [type, deps.codec.definition(type)?.version ?? 1]));
  const parts = deps.pool.dialect === 'postgres' ? FOLD_PARTS : 1;
  const statement = foldStatement(fold, versions, parts);
  const outcomes = await Promise.allSettled(
    Array.from({ length: parts }, (_, part) =>
      withTransaction(deps.pool, async (tx) => {
        await tx.query(
          `${MARK_NOT_APPENDING}; SET LOCAL search_path TO ${shadow}, public; SET LOCAL synchronous_commit = off; ` +
            `SET LOCAL work_mem = '${FOLD_WORK_MEM}'`,
        );
        const { rows } = await tx.query<{ events: number; stale: number }>(
          statement,
          parts > 1 ? [String(head), types, part] : [String(head), types],
        );
        const counts = rows[0] ?? { events: 0, stale: 0 };
        if (counts.stale > 0) throw new StaleEvents(counts.stale);
        return counts.events;
      }),
    ),
  );
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    const reason: unknown = failure.reason;
    if (reason instanceof StaleEvents) {
      deps.log.info(
        { projection: projection.name, stale: reason.count },
        'events predate their current schema: the rebuild replays them in Node',
      );
    } else {
      deps.log.warn(
        { projection: projection.name, error: reason instanceof Error ? reason.message : String(reason) },
        'the fold in SQL failed: the rebuild replays the events in Node',
      );
    }
    await deps.pool.query(`${MARK_NOT_APPENDING}; TRUNCATE ${projection.tables.map((t) => `${shadow}.${t}`).join(', ')}`);
    return undefined;
  }
  const events = outcomes.reduce((sum, outcome) => sum + (outcome.status === 'fulfilled' ? outcome.value : 0), 0);
  deps.onProgress?.(events, events);
  return { position: head, events, how: 'sql' };
}

/** How far a replay went: the position its checkpoint moves to, and the events it replayed. */
interface Filled {
  readonly position: bigint | undefined;
  readonly events: number;
  readonly how: 'sql' | 'replay';
}

/** Replays every event of the projection into its shadow tables (a `replay` when it has one, otherwise page by page). */
async function fillShadow(
  deps: RebuildDeps,
  projection: Projection,
  replay: ProjectionReplay | undefined,
  inShadow: ReplayTransaction,
): Promise<Filled> {
  let after: bigint | undefined;
  let count = 0;
  // Only the projection's own events leave the store (on a log of many kinds, a small share of it).
  // Every event up to `head` is readable now, so the replay covers them all, of whatever type: the
  // checkpoint moves at least there, and the live runner does not read that stretch again.
  const types = [...projection.handles];
  const head = await deps.store.headPosition();
  const limit = deps.batchSize ?? REBUILD_BATCH;
  // Positions need not count events: the total to replay is counted once, for the progress report.
  const total = deps.onProgress ? await deps.store.countAfter(undefined, PROGRESS_COUNT_LIMIT, types) : undefined;
  const replayed = (events: number): void => {
    count += events;
    deps.onProgress?.(count, total === undefined || total >= PROGRESS_COUNT_LIMIT ? undefined : total);
  };
  if (replay) {
    // Each event is decoded and folded as it arrives: a page's events are never all kept, which cut
    // what reading them costs Node by half (most of it the garbage collector's copying).
    for (;;) {
      const page: { last?: RecordedEvent } = {};
      const handed = await deps.store.readAllEach({ after, limit, types }, (event) => {
        let decoded: DecodedEvent;
        try {
          decoded = deps.codec.decode(event);
        } catch (reason) {
          throw new PoisonEvent(event, reason, page.last?.position ?? after);
        }
        replay.add(decoded);
        page.last = event;
      });
      if (!page.last) break;
      await replay.endPage();
      after = page.last.position;
      replayed(handed);
    }
    await replay.finish();
  } else {
    const read = (from: bigint | undefined) => deps.store.readAll({ after: from, limit, types });
    // The next page is read while this one is applied.
    let page = read(undefined);
    for (;;) {
      const events = await page;
      const last = events.at(-1);
      if (!last) break;
      page = read(last.position);
      await inShadow((tx) => applyEvents(tx, projection, deps.codec, events));
      after = last.position;
      replayed(events.length);
    }
  }
  if (head !== undefined && (after === undefined || after < head)) after = head;
  return { position: after, events: count, how: 'replay' };
}

/** Puts the shadow tables in place of the live ones and moves the checkpoint to `position`, in one transaction. */
async function swapIn(pool: SqlPool, projection: Projection, shadow: string, position: bigint | undefined): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await tx.query(MARK_NOT_APPENDING);
    // Waits for a batch the live runner may be applying, and keeps it out until the swap commits.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [projectionLockKey(projection.name)]);
    for (const table of [...projection.tables].reverse()) await tx.query(`DROP TABLE public.${table}`);
    for (const table of projection.tables) await tx.query(`ALTER TABLE ${shadow}.${table} SET SCHEMA public`);
    await tx.query(`DROP SCHEMA ${shadow}`);
    await tx.query(
      `INSERT INTO projection_checkpoints (name, position, status, error, failed_event_id, updated_at)
         VALUES ($1, $2, 'running', NULL, NULL, now())
       ON CONFLICT (name) DO UPDATE
         SET position = EXCLUDED.position, status = 'running', error = NULL, failed_event_id = NULL, updated_at = now()`,
      [projection.name, position === undefined ? null : String(position)],
    );
  });
}
