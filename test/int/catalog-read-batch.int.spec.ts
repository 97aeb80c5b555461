import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredReader } from '../../src/read/catalog.js';
import { templateEntity } from '../../src/model/template.js';
import { createPgPool } from '../../src/storage/pool.js';
import { createDb, type Db } from '../../src/storage/kysely.js';
import { ID_BATCH_SIZE } from '../../src/storage/id-batch.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

const T1 = '00000000-0000-4000-8000-000000000001';
const T2 = '00000000-0000-4000-8000-000000000002';
const T3 = '00000000-0000-4000-8000-000000000003';
const DEAD = '00000000-0000-4000-8000-000000000009';
const MISSING = '00000000-0000-4000-8000-00000000000f';
const E1 = 'e0000000-0000-4000-8000-000000000001';
const E2 = 'e0000000-0000-4000-8000-000000000002';

async function seed(test: TestDatabase): Promise<void> {
  const templates: [id: string, name: string, labels: string[], deletedAt: string | null][] = [
    [T1, 'alpha', ['prod'], null],
    [T2, 'beta', [], null],
    [T3, 'gamma', ['dev', 'eu'], null],
    [DEAD, 'dead', [], '2024-01-02T00:00:00Z'],
  ];
  for (const [id, name, labels, deletedAt] of templates) {
    await test.pool.query(
      `INSERT INTO templates (id, name, template, labels, configuration, documentation_url, revision, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $2, $3::text[], '{"size": 2}', 'https://docs.example.com/' || $2, 3, '2024-01-01T00:00:00Z', '2024-01-01T12:00:00Z', $4)`,
      [id, name, labels, deletedAt],
    );
  }
  const links: [table: string, column: string, owner: string, target: string, ordinal: number][] = [
    ['template_parents', 'parent_id', T2, T1, 0],
    ['template_parents', 'parent_id', T3, T1, 0],
    ['template_parents', 'parent_id', T3, T2, 1],
    ['template_executors', 'executor_id', T3, E2, 0],
    ['template_executors', 'executor_id', T3, E1, 1],
    ['template_executors', 'executor_id', T1, E1, 0],
  ];
  for (const [table, column, owner, target, ordinal] of links) {
    await test.pool.query(`INSERT INTO ${table} (template_id, ${column}, ordinal) VALUES ($1, $2, $3)`, [owner, target, ordinal]);
  }
}

for (const target of databaseTargets()) {
  describe(`catalog reads by id in one turn share a statement (${target.name})`, () => {
    let test: TestDatabase;
    let db: Db;
    const statements: string[] = [];

    beforeAll(async () => {
      test = await target.create();
      db = createDb(test.pool, { onQuery: (text) => statements.push(text) });
      await seed(test);
    });
    // Not db.destroy(): it would end the pool that test.close() ends.
    afterAll(async () => test.close());

    /** What `run` sends to the database: the statements it ran. */
    const counting = async <T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> => {
      statements.length = 0;
      const result = await run();
      return { result, statements: [...statements] };
    };

    it('answers finds started in the same turn with one statement, each the view a lone find gives', async () => {
      const reader = declaredReader(templateEntity);
      const lone = [];
      for (const id of [T1, T2, T3]) lone.push((await counting(() => reader.find(db, id))).result);
      expect(lone[2]).toMatchObject({
        id: T3,
        labels: ['dev', 'eu'],
        parentIds: [T1, T2],
        executorIds: [E2, E1],
        documentationUrl: 'https://docs.example.com/gamma',
      });
      expect(lone[0]).toMatchObject({ parentIds: [], executorIds: [E1], createdAt: '2024-01-01T00:00:00.000Z' });

      const { result, statements: sent } = await counting(() =>
        Promise.all([reader.find(db, T3), reader.find(db, T1), reader.find(db, T2)]),
      );
      expect(result).toEqual([lone[2], lone[0], lone[1]]);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toContain('UNION ALL');
      // Each caller has its own object.
      expect(result[0]).not.toBe(lone[2]);
    });

    it('answers a missing and a deleted id with undefined, and both callers of a repeated id, in the same batch', async () => {
      const reader = declaredReader(templateEntity);
      const alone = await reader.find(db, T2);
      const { result, statements: sent } = await counting(() =>
        Promise.all([reader.find(db, MISSING), reader.find(db, T2), reader.find(db, DEAD), reader.find(db, T2)]),
      );
      expect(result).toEqual([undefined, alone, undefined, alone]);
      expect(result[1]).not.toBe(result[3]);
      expect(sent).toHaveLength(1);
      // A batch of one id (repeated) runs the read by id, not the ANY statement.
      const repeated = await counting(() => Promise.all([reader.find(db, T1), reader.find(db, T1)]));
      expect(repeated.result[0]).toEqual(repeated.result[1]);
      expect(repeated.result[0]).toMatchObject({ id: T1 });
      expect(repeated.statements).toHaveLength(1);
      expect(repeated.statements[0]).not.toContain('UNION ALL');
    });

    it('keeps batches apart by database and by turn', async () => {
      const reader = declaredReader(templateEntity);
      const other: string[] = [];
      const second = createDb(test.pool, { onQuery: (text) => other.push(text) });
      const { result, statements: sent } = await counting(() =>
        Promise.all([reader.find(db, T1), reader.find(second, T2), reader.find(db, T3)]),
      );
      expect(result.map((view) => view?.id)).toEqual([T1, T2, T3]);
      expect(sent).toHaveLength(1);
      expect(other).toHaveLength(1);
      // A find started after the batch left runs in the next one.
      const later = await counting(async () => {
        const first = reader.find(db, T1);
        await new Promise((resolve) => setImmediate(resolve));
        return Promise.all([first, reader.find(db, T2)]);
      });
      expect(later.result.map((view) => view?.id)).toEqual([T1, T2]);
      expect(later.statements).toHaveLength(2);
    });

    it('reads more ids than one statement takes in statements of ID_BATCH_SIZE each', async () => {
      const reader = declaredReader(templateEntity);
      const ids = [T1, T2, T3, DEAD, MISSING];
      expect(ids.length).toBeGreaterThan(ID_BATCH_SIZE);
      const { result, statements: sent } = await counting(() => Promise.all(ids.map((id) => reader.find(db, id))));
      expect(result.map((view) => view?.id)).toEqual([T1, T2, T3, undefined, undefined]);
      expect(sent).toHaveLength(Math.ceil(ids.length / ID_BATCH_SIZE));
    });

    it('rejects every caller of a batch whose statement fails', async () => {
      const reader = declaredReader(templateEntity);
      const results = await Promise.allSettled([reader.find(db, T1), reader.find(db, 'not-a-uuid'), reader.find(db, T2)]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
      // The reader goes on answering.
      expect(await reader.find(db, T1)).toMatchObject({ id: T1 });
    });
  });
}

const postgres = databaseTargets().find((target) => target.name === 'postgres');
if (postgres)
  describe('the catalog read of several ids on PostgreSQL', () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await postgres.create();
      await seed(test);
    });
    afterAll(() => test.close());

    it('is prepared like the read by id (one text, whatever the count), with a plan PostgreSQL keeps', async () => {
      const single = createPgPool({ connectionString: test.url ?? '', max: 1 });
      const kysely = createDb(single);
      try {
        const reader = declaredReader(templateEntity);
        // Seven batches of two or three ids: past the five custom plans PostgreSQL makes before it
        // settles on a generic one, which it keeps only when the statement's text fixes the id count.
        for (const ids of [
          [T1, T2],
          [T1, T2, T3],
          [MISSING, T3],
          [T2, T3],
          [T1, T3],
          [T1, T2, T3],
          [T3, T1],
        ]) {
          const views = await Promise.all(ids.map((id) => reader.find(kysely, id)));
          expect(views.map((view) => view?.id)).toEqual(ids.map((id) => (id === MISSING ? undefined : id)));
        }
        const prepared = (
          await single.query<{ statement: string; generic_plans: string }>('select statement, generic_plans from pg_prepared_statements')
        ).rows;
        const byIds = prepared.filter((row) => row.statement.includes('UNION ALL'));
        expect(byIds).toHaveLength(1);
        expect(byIds[0]?.statement).toContain('"templates"."documentation_url" as "documentation_url"');
        expect(Number(byIds[0]?.generic_plans)).toBeGreaterThan(0);
      } finally {
        await kysely.destroy();
      }
    });
  });
