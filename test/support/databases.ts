import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/storage/migrate.js';
import { createPgPool, createPglitePool, dumpPgliteDataDir, type SqlPool } from '../../src/storage/pool.js';

/** A fresh, migrated database for one test (or one describe block). */
export interface TestDatabase {
  readonly pool: SqlPool;
  /** A connection string for a second process or pool (PostgreSQL only). */
  readonly url?: string;
  close(): Promise<void>;
}

export interface DatabaseTarget {
  readonly name: 'pglite' | 'postgres';
  create(options?: { migrate?: boolean }): Promise<TestDatabase>;
}

/**
 * A migrated PGlite data directory, made once per test process: each migrated test database starts
 * as a copy of it (≈0.5 s) instead of running initdb and the migrations (≈2.5 s).
 */
let migratedPglite: Promise<Blob> | undefined;

const pgliteTarget: DatabaseTarget = {
  name: 'pglite',
  async create({ migrate: run = true } = {}) {
    if (run) {
      migratedPglite ??= dumpPgliteDataDir(async (fresh) => {
        await migrate(fresh);
      });
    }
    const pool = await createPglitePool(undefined, run ? { from: await migratedPglite } : {});
    return { pool, close: () => pool.end() };
  },
};

/** Each call creates its own database on the TEST_DATABASE_URL server, so test files run in parallel. */
function postgresTarget(adminUrl: string): DatabaseTarget {
  return {
    name: 'postgres',
    async create({ migrate: run = true } = {}) {
      const name = `il_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const pool = createPgPool({ connectionString: url.toString(), max: 12 });
      if (run) await migrate(pool);
      return {
        pool,
        url: url.toString(),
        async close() {
          await pool.end();
          const cleanup = new pg.Client({ connectionString: adminUrl });
          await cleanup.connect();
          await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await cleanup.end();
        },
      };
    },
  };
}

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL names a server (CI sets it). */
export function databaseTargets(): DatabaseTarget[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [pgliteTarget, postgresTarget(url)] : [pgliteTarget];
}

/**
 * One store, for suites whose behaviour does not depend on it (the input gate refuses before any
 * read; credential hashing and revocation are the same rules over the same SQL, which the identity
 * suites run on both; the GraphQL-over-HTTP audit and the fuzzing judge the protocol layer, which
 * answers before or beside the read side; single sign-on writes users and sessions through the
 * commands the identity suites run on both):
 * PostgreSQL when TEST_DATABASE_URL names a server, else PGlite.
 */
export function oneDatabaseTarget(): DatabaseTarget[] {
  return databaseTargets().slice(-1);
}
