import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { defaultCounts } from '../../src/cli/seed/options.js';
import type { SqlPool } from '../../src/storage/pool.js';

/** How large a catalog the GraphQL bench wants (at least). */
export interface CatalogSize {
  readonly resources: number;
  readonly templates: number;
  readonly executors: number;
}

/** Creates the database on its server when it does not exist (nothing else: the service migrates it). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    return true;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** Live rows of the three seeded kinds the queries read, as the projections have them. */
export async function countCatalog(pool: SqlPool): Promise<CatalogSize> {
  const { rows } = await pool.query<{ resources: string; templates: string; executors: string }>(`
    SELECT (SELECT count(*) FROM resources WHERE deleted_at IS NULL) AS resources,
           (SELECT count(*) FROM templates WHERE deleted_at IS NULL) AS templates,
           (SELECT count(*) FROM executors WHERE deleted_at IS NULL) AS executors`);
  const row = rows[0];
  return { resources: Number(row?.resources ?? 0), templates: Number(row?.templates ?? 0), executors: Number(row?.executors ?? 0) };
}

export const isLargeEnough = (have: CatalogSize, want: CatalogSize): boolean =>
  have.resources >= want.resources && have.templates >= want.templates && have.executors >= want.executors;

/**
 * What a top-up seed run writes: the missing rows, but never fewer templates and executors than the
 * seed's own defaults for its resources (they are spread over the templates of the same run).
 */
export function topUp(have: CatalogSize, want: CatalogSize): CatalogSize {
  const resources = Math.max(1, want.resources - have.resources);
  const defaults = defaultCounts(resources);
  return {
    resources,
    templates: Math.min(1000, Math.max(defaults.templates, want.templates - have.templates)),
    executors: Math.min(200, Math.max(defaults.executors, want.executors - have.executors)),
  };
}

const SEED_CLI = fileURLToPath(new URL('../../src/cli/seed.ts', import.meta.url));

/**
 * Runs `npm run seed` as a child process (its own event loop and projection runners) with the bench
 * environment, passing its progress lines to `onLine`; resolves when it exited successfully.
 */
export function runSeed(env: Record<string, string>, size: CatalogSize, onLine: (line: string) => void): Promise<void> {
  const args = ['--resources', size.resources, '--templates', size.templates, '--executors', size.executors].map(String);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SEED_CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`the seed exited with ${signal ?? `code ${code}`}`))));
  });
}

/** Up to `limit` ids of live resources, spread over the table, for the single-resource query to rotate through. */
export async function sampleResourceIds(pool: SqlPool, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM resources WHERE deleted_at IS NULL ORDER BY md5(id::text) LIMIT $1', [
    limit,
  ]);
  return rows.map((row) => row.id);
}
