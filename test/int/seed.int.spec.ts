import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog, type SeedSummary } from '../../src/cli/seed/catalog.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import type { SeedOptions } from '../../src/cli/seed/options.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { openServices, type Services } from '../../src/services.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { TEST_PASSWORD_HASH_COST } from '../support/password-cost.js';

const TABLES = [
  'integrations',
  'secrets',
  'storages',
  'source_codes',
  'executors',
  'templates',
  'source_code_versions',
  'resources',
] as const;

/** 6 templates: one abstract, five with a version each, and two of those (the 1st and 4th) a second one. */
const EXPECTED = {
  integrations: 6,
  secrets: 3,
  storages: 3,
  source_codes: 20,
  executors: 3,
  templates: 6,
  source_code_versions: 7,
  resources: 60,
};

const small = (prefix: string): SeedOptions => ({ resources: 60, templates: 6, executors: 3, concurrency: 8, prefix });

for (const target of databaseTargets()) {
  describe(`the seed command on ${target.name}`, () => {
    let database: TestDatabase;
    let services: Services;
    let dataDir: string;
    let first: SeedSummary;

    const rows = async (table: string): Promise<number> => {
      const { rows: counted } = await services.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE deleted_at IS NULL`);
      return Number(counted[0]?.n);
    };
    const counts = async (): Promise<Record<string, number>> =>
      Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await rows(t)] as const)));

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-seed-'));
      database = await target.create();
      const config = loadConfig({
        DATA_DIR: dataDir,
        SECRET_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'silent',
        INITIAL_ADMIN_PASSWORD: 'seed-admin-password-1',
        PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      });
      services = await openServices(config, createLogger({ level: 'silent' }), { pool: database.pool, pollIntervalMs: 20 });
      // Analyses at 10, 20 and 40 resources, as a large seed does at 1,000, 2,000, 4,000, …
      first = await seedCatalog(services, small('seed-first'), { analyzeFrom: 10 });
      await waitForProjections(services, first.head);
    });
    afterAll(async () => {
      await services.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('analyses the database as its resources double, so the planner knows how large the log has grown', async () => {
      // reltuples is -1 until a table is first analysed (or vacuumed, which nothing here does).
      const { rows: events } = await services.pool.query<{ reltuples: number }>(
        "SELECT reltuples FROM pg_class WHERE relname = 'events' AND relkind = 'r'",
      );
      expect(Number(events[0]?.reltuples)).toBeGreaterThan(100);
    });

    it('fills every read table with the counts the summary reports', async () => {
      expect(await counts()).toEqual(EXPECTED);
      expect(first.counts).toEqual({
        integration: 6,
        secret: 3,
        storage: 3,
        source_code: 20,
        executor: 3,
        template: 6,
        source_code_version: 7,
        resource: 60,
      });
      expect(first.events).toBe(first.commands);
    });

    it('spreads the resources over several lifecycle positions, most of them provisioned', async () => {
      const { rows: positions } = await services.pool.query<{ state: string; status: string; n: string }>(
        'SELECT state, status, count(*) AS n FROM resources WHERE deleted_at IS NULL GROUP BY state, status',
      );
      const byPosition = new Map(positions.map((p) => [`${p.state}/${p.status}`, Number(p.n)]));
      expect(byPosition.size).toBeGreaterThanOrEqual(6);
      expect(byPosition.get('provisioned/done')).toBeGreaterThan(30);
      for (const position of ['provision/approval_pending', 'provision/error', 'destroyed/done'])
        expect(byPosition.get(position), position).toBeGreaterThan(0);
      expect(Object.fromEntries(first.positions)).toEqual(Object.fromEntries(byPosition));
    });

    it('links parents and children, templates to executors and parents, and masks sensitive variables', async () => {
      const { rows: parents } = await services.pool.query<{ n: string }>('SELECT count(*) AS n FROM resource_parents');
      expect(Number(parents[0]?.n)).toBe(2);
      const { rows: masked } = await services.pool.query<{ variables: { name: string; value: unknown; sensitive: boolean }[] }>(
        'SELECT variables FROM resources WHERE variables @> \'[{"name":"admin_password"}]\' LIMIT 1',
      );
      expect(masked[0]?.variables.find((v) => v.name === 'admin_password')).toEqual({
        name: 'admin_password',
        value: '********',
        sensitive: true,
      });
      const { rows: linked } = await services.pool.query<{ parents: string; executors: string }>(
        'SELECT (SELECT count(*) FROM template_parents) AS parents, (SELECT count(*) FROM template_executors) AS executors',
      );
      expect(Number(linked[0]?.parents)).toBeGreaterThan(0);
      expect(Number(linked[0]?.executors)).toBeGreaterThan(0);
    });

    it('adds a second catalog beside the first when run again with another prefix', async () => {
      const second = await seedCatalog(services, small('seed-second'));
      await waitForProjections(services, second.head);
      expect(second.counts).toEqual(first.counts);
      expect(await counts()).toEqual(Object.fromEntries(Object.entries(EXPECTED).map(([table, n]) => [table, 2 * n])));
    });

    it('refuses a repeated prefix with the uniqueness conflict REST would answer', async () => {
      await expect(seedCatalog(services, small('seed-first'))).rejects.toThrow(
        /^creating integration seed-first .*: NOT_UNIQUE: an integration named/,
      );
    });
  });
}
