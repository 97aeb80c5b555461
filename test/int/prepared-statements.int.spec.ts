import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '../../src/events/store/postgres.js';
import { createPgPool, withTransaction } from '../../src/storage/pool.js';
import { PLAN_EACH_CALL } from '../../src/storage/prepared.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { createDb } from '../../src/storage/kysely.js';
import { declaredReader } from '../../src/read/catalog.js';
import { templateEntity } from '../../src/model/template.js';
import { parseListQuery } from '../../src/read/list-query.js';
import { listSpecOf } from '../../src/read/list-specs/common.js';

const templateListSpec = listSpecOf(templateEntity);

const postgres = databaseTargets().find((target) => target.name === 'postgres');

if (postgres)
  describe('repeated statements are prepared on PostgreSQL', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await postgres.create();
    });
    afterAll(() => db.close());

    it('runs a repeated statement as a named prepared statement, with the same answers', async () => {
      const client = await db.pool.connect();
      try {
        const text = 'select $1::int + 1 as "next"';
        const answers = [];
        for (const n of [1, 2, 3]) answers.push((await client.query<{ next: number }>(text, [n])).rows[0]?.next);
        expect(answers).toEqual([2, 3, 4]);
        const prepared = await client.query<{ name: string; statement: string }>('select name, statement from pg_prepared_statements');
        const ours = prepared.rows.find((row) => row.statement === text);
        expect(ours?.name).toMatch(/^il_\d+$/);
        // pg's other call shapes: text alone, and text with a callback.
        const bare = 'select 41 + 1 as "answer"';
        await client.query(bare);
        await client.query(bare);
        const viaCallback = await new Promise<unknown>((resolve, reject) => {
          (client as unknown as { query(text: string, callback: (error: Error | null, result: { rows: unknown[] }) => void): void }).query(
            bare,
            (error, result) => (error ? reject(error) : resolve(result.rows)),
          );
        });
        expect(viaCallback).toEqual([{ answer: 42 }]);
        const named = await client.query<{ statement: string }>('select statement from pg_prepared_statements');
        expect(named.rows.map((row) => row.statement)).toContain(bare);
      } finally {
        client.release();
      }
    });

    it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false (for poolers that cannot keep them)', async () => {
      const unprepared = createPgPool({ connectionString: db.url ?? '', max: 1, prepareStatements: false });
      try {
        const client = await unprepared.connect();
        try {
          for (const n of [1, 2, 3]) await client.query('select $1::int * 2 as "twice"', [n]);
          expect((await client.query('select name from pg_prepared_statements')).rows).toEqual([]);
        } finally {
          client.release();
        }
      } finally {
        await unprepared.end();
      }
    });

    it('plans statements inside transactions (the write paths) afresh each time, never from a kept plan', async () => {
      const mode = await withTransaction(
        db.pool,
        async (tx) => (await tx.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0],
      );
      expect(mode).toEqual({ plan_cache_mode: 'force_custom_plan' });
      // Outside a transaction the server's default applies again.
      expect((await db.pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]).toEqual({ plan_cache_mode: 'auto' });
    });

    it("never prepares a text marked PLAN_EACH_CALL, nor the event store's lookups of streams and event ids", async () => {
      // One connection, so the statements and pg_prepared_statements are that connection's.
      const single = createPgPool({ connectionString: db.url ?? '', max: 1 });
      try {
        const store = createPostgresEventStore({ pool: single });
        const marked = `select $1::int + 2 as "plus" ${PLAN_EACH_CALL}`;
        for (let i = 0; i < 6; i++) {
          expect((await single.query<{ plus: number }>(marked, [i])).rows).toEqual([{ plus: i + 2 }]);
          await store.readStream(`template-${randomUUID()}`);
          await store.readStreams([`template-${randomUUID()}`, `unique-template-name:${i}`]);
        }
        const prepared = await single.query<{ statement: string }>('select statement from pg_prepared_statements');
        expect(prepared.rows.filter((row) => row.statement.includes('plan each call') || row.statement.includes('FROM events'))).toEqual(
          [],
        );
      } finally {
        await single.end();
      }
    });

    it('prepares a catalog read by id (its columns named) and plans a catalog list per call', async () => {
      const single = createPgPool({ connectionString: db.url ?? '', max: 1 });
      const kysely = createDb(single);
      try {
        const reader = declaredReader(templateEntity);
        const query = parseListQuery(templateListSpec, { filter: JSON.stringify({ name__like: 'web' }) });
        for (let i = 0; i < 3; i++) {
          expect(await reader.find(kysely, randomUUID())).toBeUndefined();
          expect(await reader.list(kysely, templateListSpec, query)).toEqual({ rows: [], total: 0 });
        }
        const prepared = (await single.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map(
          (row) => row.statement,
        );
        const byId = prepared.filter((text) => text.includes('"templates"."id" = $1'));
        expect(byId).toHaveLength(1);
        expect(byId[0]).toContain('"templates"."documentation_url" as "documentation_url"');
        expect(prepared.filter((text) => text.includes('list_matches') || text.includes('ilike'))).toEqual([]);
      } finally {
        await kysely.destroy();
      }
    });

    it('runs every connection of the service with JIT off', async () => {
      const settings = await Promise.all(Array.from({ length: 3 }, () => db.pool.query<{ jit: string }>('SHOW jit')));
      expect(settings.map((r) => r.rows[0]?.jit)).toEqual(['off', 'off', 'off']);
      expect(await withTransaction(db.pool, async (tx) => (await tx.query<{ jit: string }>('SHOW jit')).rows[0]?.jit)).toBe('off');
    });

    it('keeps multi-statement texts on the simple protocol', async () => {
      for (let i = 0; i < 3; i++) await db.pool.query('select 1; select 2');
      const prepared = await db.pool.query<{ statement: string }>(
        "select statement from pg_prepared_statements where statement like 'select 1;%'",
      );
      expect(prepared.rows).toEqual([]);
    });
  });

if (!postgres) {
  describe('prepared statements on PostgreSQL', () => {
    it('was not run: TEST_DATABASE_URL is not set (.ci/run sets it to a local PostgreSQL)', () => {
      console.warn('[skipped] prepared statements: set TEST_DATABASE_URL to run it');
    });
  });
}
