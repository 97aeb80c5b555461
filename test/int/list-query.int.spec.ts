import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/storage/kysely.js';
import { contentRange, listPage, listWithTotal, parseListQuery, type ListInput } from '../../src/read/list-query.js';
import { declaredListSpec } from '../../src/read/list-specs/common.js';
import { templateEntity } from '../../src/model/template.js';

const spec = declaredListSpec(templateEntity);
import { databaseTargets, type TestDatabase } from '../support/databases.js';

// Ids in ascending order, so the expected tie-break order is readable: T1 < T2 < … < DEAD.
const T1 = '00000000-0000-4000-8000-000000000001';
const T2 = '00000000-0000-4000-8000-000000000002';
const T3 = '00000000-0000-4000-8000-000000000003';
const T4 = '00000000-0000-4000-8000-000000000004';
const T5 = '00000000-0000-4000-8000-000000000005';
const T6 = '00000000-0000-4000-8000-000000000006';
const DEAD = '00000000-0000-4000-8000-000000000009';
const C1 = 'c0000000-0000-4000-8000-000000000001';
const C2 = 'c0000000-0000-4000-8000-000000000002';
const E1 = 'e0000000-0000-4000-8000-000000000001';
const E2 = 'e0000000-0000-4000-8000-000000000002';

const NOON = '2024-01-02T12:00:00Z'; // T2, T3 and T6 share it: the tie that id must break

// id, name, template, description, labels, abstract, cloud types, status, creator, revision, created_at, deleted_at
type Seed = [string, string, string, string, string[], boolean, string[], string, string | null, number, string, string | null];
const SEEDS: Seed[] = [
  [T1, 'alpha', 'tpl-a', 'Frontend servers', ['prod', 'eu'], false, ['vm'], 'enabled', C1, 1, '2024-01-01T00:00:00Z', null],
  [T2, 'beta', 'tpl-b', 'Postgres 50% off', ['prod'], true, ['db'], 'disabled', null, 2, NOON, null],
  [T3, 'gamma', 'tpl-c', '500 items', ['dev', 'eu'], false, ['vm', 'cache'], 'enabled', C2, 3, NOON, null],
  [T4, 'delta', 'queue-tpl', 'x_y', [], false, [], 'enabled', C1, 5, '2024-01-03T00:00:00Z', null],
  [T5, 'epsilon', 'tpl-e', 'Net\\Path', ['eu'], true, [], 'disabled', C2, 8, '2024-01-04T00:00:00Z', null],
  [T6, 'zeta', 'tpl-z', 'xzy', ['dev'], false, ['vm'], 'enabled', null, 3, NOON, null],
  // A tombstone that matches nearly every filter below, so any leak shows.
  [DEAD, 'alpha dead', 'tpl-a', 'Front 50% x_y', ['prod', 'eu', 'dev'], true, ['vm', 'cache'], 'enabled', null, 3, NOON, NOON],
];
const LIVE_BY_CREATED_ASC = [T1, T2, T3, T6, T4, T5];

async function seed(test: TestDatabase): Promise<void> {
  for (const [id, name, template, description, labels, abstract, types, status, creator, revision, created, deleted] of SEEDS) {
    await test.pool.query(
      `INSERT INTO templates (id, name, template, description, labels, abstract, cloud_resource_types, configuration, status,
         creator_id, revision, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5::text[], $6, $7::text[], '{}', $8, $9, $10, $11, $11, $12)`,
      [id, name, template, description, labels, abstract, types, status, creator, revision, created, deleted],
    );
  }
  const links: [string, string, string][] = [
    ['template_executors', T1, E1],
    ['template_executors', T3, E1],
    ['template_executors', DEAD, E1],
    ['template_executors', T3, E2],
    ['template_executors', T4, E2],
    ['template_parents', T4, T1],
    ['template_parents', T5, T1],
    ['template_parents', DEAD, T1],
  ];
  for (const [table, owner, target] of links) {
    const column = table === 'template_executors' ? 'executor_id' : 'parent_id';
    await test.pool.query(`INSERT INTO ${table} (template_id, ${column}, ordinal) VALUES ($1, $2, 0)`, [owner, target]);
  }
}

for (const target of databaseTargets()) {
  describe(`list engine on ${target.name}`, () => {
    let test: TestDatabase;
    let db: Db;

    beforeAll(async () => {
      test = await target.create();
      db = createDb(test.pool);
      await seed(test);
    });
    // Not db.destroy(): it would end the pool that test.close() ends (and drops the database after).
    afterAll(async () => test.close());

    const list = async (input: ListInput) => {
      const query = parseListQuery(spec, input);
      const page = await listPage(db, spec, query, ['id', 'name']);
      return { ...page, ids: page.rows.map((row) => row.id), range: contentRange(spec, query, page.rows.length, page.total) };
    };
    /** The ids matching `filter`, in id order, with the total checked against them. */
    const matching = async (filter: Record<string, unknown>): Promise<string[]> => {
      const { ids, total } = await list({ filter, sort: ['id', 'ASC'] });
      expect(total).toBe(ids.length);
      return ids;
    };

    describe('when filtering by a field', () => {
      it.each<[string, Record<string, unknown>, string[]]>([
        ['equality', { name: 'beta' }, [T2]],
        ['one of', { status: ['disabled'] }, [T2, T5]],
        ['is null', { creatorId: null }, [T2, T6]],
        ['__ne, counting null as different', { creatorId__ne: C1 }, [T2, T3, T5, T6]],
        ['__ne null', { creator_id__ne: null }, [T1, T3, T4, T5]],
        ['__in', { id__in: [T4, T5, DEAD] }, [T4, T5]],
        ['__in with nothing', { id__in: [] }, []],
        ['__like, ignoring case', { name__like: 'ALPH' }, [T1]],
        ['__gt on a number', { revision__gt: 3 }, [T4, T5]],
        ['__gte on a number', { revision__gte: 3 }, [T3, T4, T5, T6]],
        ['__lt on a number', { revision__lt: 2 }, [T1]],
        ['__lte on a number', { revision__lte: 2 }, [T1, T2]],
        ['__gt on a datetime', { createdAt__gt: NOON }, [T4, T5]],
        ['__gte on a date', { created_at__gte: '2024-01-03' }, [T4, T5]],
        ['__lt on a datetime', { createdAt__lt: NOON }, [T1]],
        ['__lte on a datetime', { createdAt__lte: '2024-01-02T12:00:00.000' }, [T1, T2, T3, T6]],
        ['datetime equality across offsets', { createdAt: '2024-01-02T13:00:00+01:00' }, [T2, T3, T6]],
        ['a boolean', { abstract: true }, [T2, T5]],
        ['a boolean __ne', { abstract__ne: true }, [T1, T3, T4, T6]],
        ['a labels element', { labels: 'eu' }, [T1, T3, T5]],
        ['all of several labels', { labels: ['prod', 'eu'] }, [T1]],
        ['cloud resource types', { cloudResourceTypes: ['vm', 'cache'] }, [T3]],
        ['an executor', { executorId: E1 }, [T1, T3]],
        ['any of several executors', { executorId: [E1, E2] }, [T1, T3, T4]],
        ['a parent', { parentId: T1 }, [T4, T5]],
        ['several conditions at once', { labels: 'eu', abstract: false, revision__gte: 2 }, [T3]],
      ])('returns the rows matching %s', async (_, filter, expected) => {
        expect(await matching(filter)).toEqual(expected);
      });
    });

    describe('when searching with q', () => {
      it.each<[string, string, string[]]>([
        ['a name', 'eps', [T5]],
        ['a template, ignoring case', 'QUEUE', [T4]],
        ['a description', 'frontend', [T1]],
        ['text shared by every row', 'tpl', [T1, T2, T3, T4, T5, T6]],
      ])('finds %s', async (_, q, expected) => {
        expect(await matching({ q })).toEqual(expected);
      });
    });

    describe('when a contains value holds LIKE wildcards', () => {
      it.each<[string, string, string[]]>([
        ['%', '50%', [T2]], // unescaped, it would also match "500 items"
        ['_', 'x_y', [T4]], // unescaped, it would also match "xzy"
        ['\\', 'net\\path', [T5]],
      ])('matches %s literally', async (_, text, expected) => {
        expect(await matching({ description__like: text })).toEqual(expected);
        expect(await matching({ q: text })).toEqual(expected);
      });
    });

    describe('when sorting', () => {
      it('breaks ties on the sort column by id, ascending', async () => {
        expect((await list({ sort: ['createdAt', 'ASC'] })).ids).toEqual(LIVE_BY_CREATED_ASC);
      });

      it('breaks ties on the sort column by id, descending', async () => {
        expect((await list({ sort: ['createdAt', 'desc'] })).ids).toEqual([...LIVE_BY_CREATED_ASC].reverse());
      });

      it('sorts newest first by default', async () => {
        expect((await list({})).ids).toEqual([...LIVE_BY_CREATED_ASC].reverse());
      });

      it('sorts by name and by number', async () => {
        expect((await list({ sort: ['name', 'ASC'] })).ids).toEqual([T1, T2, T4, T5, T3, T6]);
        expect((await list({ sort: ['revision', 'DESC'] })).ids).toEqual([T5, T4, T6, T3, T2, T1]);
      });
    });

    describe('when paging', () => {
      it.each([1, 2, 4, 6])('visits every row exactly once with pages of %i', async (size) => {
        const seen: string[] = [];
        for (let offset = 0; ; offset += size) {
          const page = await list({ sort: ['createdAt', 'ASC'], range: [offset, size] });
          expect(page.total).toBe(6);
          if (page.ids.length === 0) break;
          seen.push(...page.ids);
        }
        expect(seen).toEqual(LIVE_BY_CREATED_ASC);
      });

      it('selects only the requested columns', async () => {
        const { rows } = await list({ range: [0, 1] });
        expect(rows.map((row) => Object.keys(row).sort())).toEqual([['id', 'name']]);
      });

      it('counts every match, not just the page', async () => {
        const page = await list({ filter: { labels: 'eu' }, range: [0, 1] });
        expect(page.ids).toHaveLength(1);
        expect(page.total).toBe(3);
      });
    });

    describe('when a template is deleted', () => {
      it('never lists or counts its tombstone', async () => {
        const all = await list({ range: [0, 1000] });
        expect(all.ids).not.toContain(DEAD);
        expect(all.total).toBe(6);
        expect(await list({ filter: { name: 'alpha dead' } })).toMatchObject({ ids: [], total: 0 });
      });
    });

    describe('when the total comes with the page', () => {
      /** The page, its total and how many statements answered them, with `cap` matches counted with the page. */
      const counted = async (input: ListInput, cap?: number) => {
        const statements: string[] = [];
        const watched = createDb(test.pool, { onQuery: (text) => statements.push(text) });
        const page = await listWithTotal(watched, spec, parseListQuery(spec, input), {
          select: (from) => from.selectFrom('templates').select('templates.id'),
          ...(cap === undefined ? {} : { countedWithPage: cap }),
        });
        return { ids: page.rows.map((row) => row['id']), total: page.total, statements: statements.length };
      };
      const ASC = ['createdAt', 'ASC'];

      it.each<[string, ListInput, number | undefined, { ids: string[]; total: number; statements: number }]>([
        ['fewer matches than the cap: one statement', { sort: ASC, range: [0, 2] }, undefined, { ids: [T1, T2], total: 6, statements: 1 }],
        ['a later page, matches under the cap', { sort: ASC, range: [4, 2] }, 3, { ids: [T4, T5], total: 6, statements: 1 }],
        [
          'a filter with fewer matches than the cap',
          { filter: { labels: 'eu' }, range: [0, 1] },
          4,
          { ids: [T5], total: 3, statements: 1 },
        ],
        ['no match at all', { filter: { name__like: 'nobody' } }, undefined, { ids: [], total: 0, statements: 1 }],
        ['more matches than the cap: then a count', { sort: ASC, range: [0, 2] }, 3, { ids: [T1, T2], total: 6, statements: 2 }],
        ['exactly the cap: more may exist, so a count', { sort: ASC, range: [0, 2] }, 6, { ids: [T1, T2], total: 6, statements: 2 }],
        ['a page past the end: a count', { sort: ASC, range: [6, 10] }, undefined, { ids: [], total: 6, statements: 2 }],
        ['an empty range: a count', { sort: ASC, range: [0, 0] }, undefined, { ids: [], total: 6, statements: 2 }],
        [
          'a __like filter over the cap',
          { filter: { name__like: 'A' }, sort: ['id', 'DESC'], range: [1, 2] },
          2,
          { ids: [T4, T3], total: 5, statements: 2 },
        ],
      ])('is exact with %s', async (_, input, cap, expected) => {
        expect(await counted(input, cap)).toEqual(expected);
      });
    });

    describe('when building Content-Range', () => {
      it('names the first and last row of the page and the total', async () => {
        expect((await list({ range: [0, 100] })).range).toBe('templates 0-5/6');
        expect((await list({ range: [2, 2] })).range).toBe('templates 2-3/6');
        expect((await list({ range: [4, 10] })).range).toBe('templates 4-5/6');
      });

      it('uses * when the page is empty', async () => {
        expect((await list({ range: [0, 0] })).range).toBe('templates */6');
        expect((await list({ range: [6, 10] })).range).toBe('templates */6');
        expect((await list({ filter: { name: 'nobody' } })).range).toBe('templates */0');
      });
    });
  });
}
