import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { migrate } from '../src/storage/migrate.js';
import type { Migration } from '../src/storage/migrations/index.js';
import { createPgPool, createPglitePool, type SqlPool } from '../src/storage/pool.js';
import type { Logger } from '../src/log.js';

/** Which database a bench run talks to. */
export type StoreKind = 'pglite' | 'postgres';

/** A fresh, migrated database that exists only for one bench run. */
export interface BenchDatabase {
  readonly kind: StoreKind;
  readonly pool: SqlPool;
  /** Server version string, for the report. */
  readonly version: string;
  /** Empties the event store and every read table, so the next phase starts from zero. */
  reset(): Promise<void>;
  /** Closes the pool and, on a server, drops the throwaway database. */
  close(): Promise<void>;
}

/** Tables the bench empties between phases (all the migrations create besides schema_migrations). */
const RESET_SQL = 'TRUNCATE events, projection_checkpoints, templates, template_executors, template_parents RESTART IDENTITY';

/** Default server used when `BENCH_DATABASE_URL` is unset. */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The reason a PostgreSQL server cannot be used, or undefined when it answers. */
export async function probePostgres(adminUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  // A connection that fails after connect() must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function versionOf(pool: SqlPool): Promise<string> {
  const { rows } = await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  return rows[0]?.v ?? 'unknown';
}

/** An in-memory PGlite database, migrated. */
export async function openPglite(log: Logger): Promise<BenchDatabase> {
  const pool = await createPglitePool();
  try {
    await migrate(pool, log);
    const version = await versionOf(pool);
    const reset = async (): Promise<void> => {
      await pool.query(RESET_SQL);
    };
    return { kind: 'pglite', pool, version, reset, close: () => pool.end() };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

const OBJECT_IN_USE = '55006';

/**
 * Drops the database once its connections are gone. pg-pool's end() resolves before its clients'
 * sockets have closed, and `WITH (FORCE)` right away would kill those backends mid-goodbye, which the
 * pool reports as failed idle connections. So wait for them (briefly), and force only as a last resort.
 */
async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== OBJECT_IN_USE) throw error;
        await delay(20);
      }
    }
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** How a throwaway bench database is made. */
export interface OpenPostgresOptions {
  /** Pool size (default 12: eight writers plus the runner, the rebuild and the LISTEN connection). */
  readonly connections?: number;
  /** Migrations to apply (default all; an empty list leaves the database empty, e.g. for Emmett). */
  readonly migrations?: readonly Migration[];
}

/** Creates a throwaway database on the server at `adminUrl` (as test/support/databases.ts does) and migrates it. */
export async function openPostgres(
  adminUrl: string,
  log: Logger,
  options: OpenPostgresOptions = {},
): Promise<BenchDatabase & { readonly url: string }> {
  const name = `il_bench_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPgPool({ connectionString: url.toString(), max: options.connections ?? 12, log });
  const drop = async (): Promise<void> => {
    await pool.end().catch(() => undefined);
    await dropDatabase(adminUrl, name);
  };
  try {
    if (options.migrations?.length !== 0) await migrate(pool, log, options.migrations);
    const version = await versionOf(pool);
    return {
      kind: 'postgres',
      url: url.toString(),
      pool,
      version,
      reset: async () => {
        await pool.query(RESET_SQL);
      },
      close: drop,
    };
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
}
