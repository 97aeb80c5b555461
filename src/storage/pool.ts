import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SyncObserver } from './durable-nodefs.js';
import pg from 'pg';
import type { Logger } from '../log.js';
import { createStatementNamer, prepareRepeatedStatements } from './prepared.js';
import { cacheResultShapes } from './result-shapes.js';

/** The result shape of node-postgres, which PGlite is adapted to. */
export interface SqlResult<R> {
  readonly rows: R[];
  readonly rowCount: number | null;
  readonly command: string;
}

/** One connection, or anything that runs statements like one. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  release(destroy?: boolean | Error): void;
}

/**
 * What the service needs from a database: node-postgres' Pool surface (so Kysely's PostgresDialect
 * takes it as is), plus LISTEN. Two implementations: a real server through `pg`, and embedded PGlite.
 */
export interface SqlPool {
  readonly dialect: 'postgres' | 'pglite';
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  /**
   * Runs one statement and hands each row to `onRow` as it arrives instead of collecting them, so a
   * reader that keeps little of each row leaves little for the garbage collector (PGlite answers
   * with every row at once and hands them over in turn). Answers how many rows it handed over. An
   * error `onRow` throws stops the handing over and rejects, once the statement has ended.
   */
  // R names the rows the statement selects, as query's does.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  queryEach<R = Record<string, unknown>>(text: string, params: readonly unknown[], onRow: (row: R) => void): Promise<number>;
  connect(): Promise<SqlClient>;
  /** Calls `onPayload` for every NOTIFY on `channel` from any process; returns the unsubscribe. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  end(): Promise<void>;
}

/**
 * Transactions are the write paths (projection batches, rebuilds, migrations), whose tables can grow
 * from nothing to millions of rows between two autovacuum ANALYZE runs: their statements are planned
 * for the table as it is now, never from a kept generic plan made when it was small (a catch-up from
 * zero ran 2.3× slower with kept plans; see ./prepared.ts). One round trip with BEGIN.
 */
const BEGIN = 'BEGIN; SET LOCAL plan_cache_mode = force_custom_plan';

/** Runs `work` inside BEGIN … COMMIT on one client, rolling back on any error. */
export async function withTransaction<T>(pool: SqlPool, work: (tx: SqlClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(BEGIN);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection is unusable; let the pool discard it
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

// int8 stays a string, as node-postgres returns it, so positions never lose precision.
const INT8_OID = 20;

/** A PostgreSQL pool's settings. */
export interface PgPoolOptions {
  readonly connectionString: string;
  readonly max?: number;
  readonly log?: Logger;
  /** Prepare repeated statements (default true; see ./prepared.ts). */
  readonly prepareStatements?: boolean;
  /**
   * How long a statement waits for a connection (a new one's connect, or a free one) before it fails
   * as a lost connection; default: no bound. Set for hot standbys, which a read may pass over.
   */
  readonly connectTimeoutMs?: number;
}

/** Back-off of a lost LISTEN connection's reconnects: from the first to the longest wait. */
const LISTEN_RETRY_MIN_MS = 250;
const LISTEN_RETRY_MAX_MS = 30_000;

/** How long a connection that keeps prepared statements lives (see createPgPool). */
const PREPARED_CONNECTION_LIFETIME_SECONDS = 300;

/** A real PostgreSQL server through node-postgres. */
export function createPgPool(options: PgPoolOptions): SqlPool {
  const prepare = options.prepareStatements ?? true;
  cacheResultShapes();
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    ...(options.connectTimeoutMs !== undefined ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
    // A connection's kept plans are replanned when ANALYZE sees their tables change; where autovacuum
    // is off nothing would, so connections are renewed every few minutes and plan again.
    ...(prepare ? { maxLifetimeSeconds: PREPARED_CONNECTION_LIFETIME_SECONDS } : {}),
    // The service's statements are short lookups and writes. JIT compiles for 5–80 ms once a plan's
    // estimated cost passes jit_above_cost, which estimates reach when a table has outgrown its
    // statistics (autovacuum late or off): a stream read of 0.1 ms then took 55 ms. Set per session
    // before the pool hands the connection out (not as a startup option, which poolers such as
    // PgBouncer refuse); a server that cannot (no JIT setting) keeps the connection as it is.
    // pg-pool awaits the hook's promise before it hands the client out; @types/pg types its result as void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: (client) =>
      client.query('SET jit = off').then(
        () => undefined,
        (error: unknown) => options.log?.warn({ err: error }, 'could not turn JIT off for a database connection'),
      ),
  });
  if (prepare) {
    const namer = createStatementNamer();
    pool.on('connect', (client) => prepareRepeatedStatements(client, namer));
  }
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', (error) => options.log?.warn({ err: error }, 'idle database connection failed'));
  // pg-pool listens for errors only while a client is idle: one checked out (a transaction between
  // statements, a Kysely connection) that loses its connection would emit an unhandled 'error' and
  // crash the process. Its pending query fails on its own and the pool discards it on release.
  pool.on('connect', (client) => {
    client.on('error', (error) => options.log?.warn({ err: error }, 'database connection failed while in use'));
  });
  const listeners = new Set<pg.Client>();
  let ending = false;
  return {
    dialect: 'postgres',
    async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
      const result = await pool.query(text, params ? [...params] : []);
      // node-postgres types rows as QueryResultRow; callers name the row type they selected.
      return { rows: result.rows as R[], rowCount: result.rowCount, command: result.command };
    },
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    async queryEach<R>(text: string, params: readonly unknown[], onRow: (row: R) => void): Promise<number> {
      const client = await pool.connect();
      let handed = 0;
      let thrown: { readonly error: unknown } | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          const query = new pg.Query(text, [...params]);
          query.on('row', (row: pg.QueryResultRow) => {
            if (thrown) return;
            try {
              // Rows are what the statement selects: the caller names their type.
              onRow(row as R);
              handed++;
            } catch (error) {
              thrown = { error };
            }
          });
          query.on('end', () => resolve());
          query.on('error', reject);
          client.query(query);
        });
      } catch (error) {
        // A statement's own error leaves the connection usable; anything else (a lost connection) does not.
        client.release(!(error instanceof pg.DatabaseError));
        throw error;
      }
      client.release();
      if (thrown) throw thrown.error;
      return handed;
    },
    connect: () => pool.connect(),
    async listen(channel, onPayload) {
      let stopped = false;
      let current: pg.Client | undefined;
      let retryMs = LISTEN_RETRY_MIN_MS;
      let retry: NodeJS.Timeout | undefined;
      const open = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: options.connectionString });
        client.on('error', (error) => options.log?.warn({ err: error, channel }, 'LISTEN connection failed; polling covers the gap'));
        client.on('notification', (message) => {
          if (message.channel === channel) onPayload(message.payload ?? '');
        });
        client.on('end', () => {
          listeners.delete(client);
          // Only the connection in use reconnects when it ends. An attempt that fails ends too (when the
          // server accepted it first: starting up, too many clients) and is retried by its own failure
          // below: answering both once doubled the attempts on every failure, thousands of sockets in
          // minutes, until the server and the process ran out of connections and descriptors.
          if (client !== current) return;
          current = undefined;
          if (!stopped && !ending) reopen();
        });
        try {
          await client.connect();
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          await client.end().catch(() => undefined);
          throw error;
        }
        current = client;
        listeners.add(client);
      };
      // After an outage, LISTEN comes back with back-off, one attempt at a time; a wake-up then covers what was missed.
      const reopen = (): void => {
        if (retry !== undefined) return;
        retry = setTimeout(() => {
          retry = undefined;
          if (stopped || ending) return;
          open().then(
            () => {
              options.log?.info({ channel }, 'LISTEN connection restored');
              retryMs = LISTEN_RETRY_MIN_MS;
              onPayload('');
            },
            (error: unknown) => {
              options.log?.warn({ err: error, channel, retryInMs: retryMs }, 'LISTEN reconnect failed');
              retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS);
              reopen();
            },
          );
        }, retryMs);
        retry.unref();
      };
      await open();
      return async () => {
        stopped = true;
        clearTimeout(retry);
        if (current) {
          listeners.delete(current);
          await current.end().catch(() => undefined);
        }
      };
    },
    async end() {
      ending = true;
      await Promise.all([...listeners].map((c) => c.end().catch(() => undefined)));
      await pool.end();
    },
  };
}

/**
 * PGlite's buffer pool. Its default, PostgreSQL's 128MB, is set up (allocated and zeroed inside the
 * WebAssembly memory) at every start: 0.3–0.5 s of a 3 s restart on the development machines.
 * One process with one session needs far less; pages beyond it are read from the data directory's
 * files through the operating system's cache (docs/benchmarks.md, "Restart").
 */
const PGLITE_SHARED_BUFFERS = '32MB';

/** How PGlite is opened: from a dumped data directory, and who hears of each sync (tests). */
interface OpenOptions {
  readonly loadDataDir?: Blob;
  readonly onSync?: SyncObserver;
}

/**
 * Opens PGlite (memory when `dataDir` is undefined), starting from a dumped data directory if given.
 * A data directory on disk is durable (./durable-nodefs.ts): PGlite's `-F` (fsync off) is dropped and
 * WAL is flushed with fsync (Emscripten's fdatasync does nothing); a database it has just created is
 * synced whole before anything is written to it. In memory nothing is durable anyway: `-F` stays.
 */
async function openPglite(dataDir: string | undefined, options: OpenOptions = {}) {
  const { PGlite } = await import('@electric-sql/pglite');
  // pg_trgm: the trigram indexes of list searches (migration 027).
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const common = {
    ...(options.loadDataDir && { loadDataDir: options.loadDataDir }),
    parsers: { [INT8_OID]: (value: string) => value },
    extensions: { pg_trgm },
  };
  const buffers = ['-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
  if (dataDir === undefined) return PGlite.create('memory://', { ...common, startParams: [...PGlite.defaultStartParams, ...buffers] });
  const { DurableNodeFS, syncTree } = await import('./durable-nodefs.js');
  const root = path.resolve(dataDir);
  const fresh = !existsSync(path.join(root, 'PG_VERSION'));
  const db = await PGlite.create({
    ...common,
    fs: new DurableNodeFS(root, options.onSync),
    startParams: [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync', ...buffers],
  });
  if (fresh) syncTree(root, options.onSync);
  return db;
}

/**
 * Opens PGlite (memory when `dataDir` is undefined) and wraps it as a pool of one connection.
 * `from`: a data directory dumped by `dumpPgliteDataDir`, which the new database starts as a copy of;
 * `onSync`: told of every file and directory synced to the disk.
 */
export async function createPglitePool(
  dataDir?: string,
  options: { readonly from?: Blob; readonly onSync?: SyncObserver } = {},
): Promise<SqlPool> {
  return pglitePool(
    await openPglite(dataDir, { ...(options.from && { loadDataDir: options.from }), ...(options.onSync && { onSync: options.onSync }) }),
  );
}

/**
 * A new in-memory PGlite, prepared by `prepare` (e.g. migrated), dumped as a data directory and
 * closed. Opening a copy of it (`createPglitePool(undefined, { from })`) takes ≈0.5 s where a new
 * database takes ≈2.5 s (initdb, then the migrations): the test suite opens hundreds.
 */
export async function dumpPgliteDataDir(prepare: (pool: SqlPool) => Promise<void>): Promise<Blob> {
  const db = await openPglite(undefined);
  try {
    await prepare(pglitePool(db));
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

interface PgliteResults<R> {
  rows: R[];
  affectedRows?: number;
}

interface PgliteLike {
  query<R>(text: string, params?: unknown[]): Promise<PgliteResults<R>>;
  exec(text: string): Promise<PgliteResults<unknown>[]>;
  close(): Promise<void>;
}

/**
 * PGlite is one Postgres session. Handing it out as a pool of one, with a FIFO lock held from
 * connect() to release(), keeps a transaction's statements together exactly as a pg client would.
 * Every writer to an embedded database lives in this process, so LISTEN is not needed: in-process
 * wake-ups cover it (see the event store).
 */
export function pglitePool(db: PgliteLike): SqlPool {
  let tail: Promise<void> = Promise.resolve();
  let closed = false;
  const acquire = async (): Promise<() => void> => {
    if (closed) throw new Error('the embedded database is closed');
    let unlock!: () => void;
    const previous = tail;
    tail = new Promise<void>((resolve) => (unlock = resolve));
    await previous;
    return unlock;
  };
  const run = async <R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> => {
    // Like node-postgres: without parameters use the simple protocol, which allows several statements.
    const result =
      params === undefined || params.length === 0
        ? (((await db.exec(text)).at(-1) as PgliteResults<R> | undefined) ?? { rows: [] })
        : await db.query<R>(text, params as unknown[]);
    const command = text.trimStart().split(/\s/, 1)[0]?.toUpperCase() ?? '';
    const rowCount = command === 'SELECT' ? result.rows.length : (result.affectedRows ?? result.rows.length);
    return { rows: result.rows, rowCount, command };
  };
  return {
    dialect: 'pglite',
    async query<R>(text: string, params?: readonly unknown[]) {
      const unlock = await acquire();
      try {
        return await run<R>(text, params);
      } finally {
        unlock();
      }
    },
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    async queryEach<R>(text: string, params: readonly unknown[], onRow: (row: R) => void) {
      const unlock = await acquire();
      let rows: R[];
      try {
        rows = (await run<R>(text, params)).rows;
      } finally {
        unlock();
      }
      for (const row of rows) onRow(row);
      return rows.length;
    },
    async connect() {
      const unlock = await acquire();
      let released = false;
      return {
        query: <R>(text: string, params?: readonly unknown[]) => {
          if (released) return Promise.reject(new Error('query on a released embedded connection'));
          return run<R>(text, params);
        },
        release() {
          if (released) return;
          released = true;
          unlock();
        },
      };
    },
    listen: () => Promise.resolve(() => Promise.resolve()),
    async end() {
      const unlock = await acquire();
      closed = true;
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
  };
}
