import type { Logger } from '../log.js';
import { migrations as all, type Migration } from './migrations/index.js';
import { withTransaction, type SqlPool } from './pool.js';

// Any constant works; it only has to differ from the other advisory lock keys of the service.
const MIGRATION_LOCK = 7_146_001;

/**
 * Applies pending migrations in one transaction. The advisory lock makes replicas starting together
 * take turns, so each migration runs exactly once.
 */
export async function migrate(pool: SqlPool, log?: Logger, migrations: readonly Migration[] = all): Promise<string[]> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [migration.id]);
      applied.push(migration.id);
      log?.info({ migration: migration.id }, 'migration applied');
    }
    return applied;
  });
}
