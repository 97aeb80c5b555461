import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { databaseTargets } from '../support/databases.js';

/*
 * A prepared statement keeps the generic plan PostgreSQL made after its first five runs until the
 * table is analysed again; where autovacuum is off or behind, a plan made on a small table stays as
 * the table grows. The reads by id must keep looking the row up by primary key: with a plain
 * `deleted_at IS NULL` beside `id = $1`, the plan made on an empty catalog walked a partial index of
 * every live row instead (docs/decisions/0004-prepared-statements.md).
 */

const postgres = databaseTargets().find((target) => target.name === 'postgres');

if (postgres)
  describe('reads by id keep the primary key in the plan made on an empty table', () => {
    let harness: HttpHarness;
    const statements: { text: string; parameters: readonly unknown[] }[] = [];

    beforeAll(async () => {
      harness = await openHttpApp(postgres, { onQuery: (text, parameters) => statements.push({ text, parameters }) });
    });
    afterAll(async () => harness.close());

    /** The statement a request ran to read a template by id (or, given `pattern`, the one matching it), and its parameters. */
    const readById = async (
      request: () => Promise<unknown>,
      pattern = /"templates"\."id" = \$\d/,
    ): Promise<{ text: string; parameters: readonly unknown[] }> => {
      statements.length = 0;
      await request();
      // The last such statement: a relation's lookup comes with (or after) its root's.
      const found = statements.findLast(({ text }) => pattern.test(text));
      if (!found) throw new Error(`no read by id among: ${statements.map(({ text }) => text).join('\n')}`);
      return found;
    };

    /**
     * Prepares each statement and runs it past the five custom plans (its generic plan is made now,
     * on an empty table), lets `fill` grow the table, and answers each statement's kept plan with
     * the plan's lines that scan `table`.
     */
    const plansAfterGrowth = async (
      statements: readonly { text: string; parameters: readonly unknown[] }[],
      fill: string,
      table: string,
    ) => {
      const client = new pg.Client({ connectionString: harness.database.url });
      await client.connect();
      try {
        const execute = (i: number): string =>
          `EXECUTE ` +
          `statement_${String(i)}(${(statements[i]?.parameters ?? []).map((value) => client.escapeLiteral(String(value))).join(', ')})`;
        for (const [i, { text }] of statements.entries()) {
          await client.query(`PREPARE statement_${String(i)} AS ${text}`);
          for (let run = 0; run < 7; run++) await client.query(execute(i));
        }
        await client.query(fill);
        const plans: { text: string; plan: string; scans: string[] }[] = [];
        for (const [i, { text }] of statements.entries()) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${execute(i)}`);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          // A bitmap heap scan reads by the index its bitmap index scan (the next such line) names.
          const lines = plan.split('\n');
          const scans = lines.flatMap((line, i) => {
            if (!new RegExp(`Scan.* on ${table}\\b`).test(line)) return [];
            const bitmap = line.includes('Bitmap Heap Scan')
              ? lines.slice(i + 1).find((next) => next.includes('Bitmap Index Scan'))
              : undefined;
            return [bitmap === undefined ? line : `${line} ${bitmap.trim()}`];
          });
          plans.push({ text, plan, scans });
        }
        return plans;
      } finally {
        await client.end();
      }
    };

    it('given the REST and GraphQL reads by id (and relations read by id, to-one and through a link table), when their generic plans are made on an empty table and the table grows, then all look rows up by primary key', async () => {
      const missing = randomUUID();
      const texts = [
        await readById(() => harness.inject({ method: 'GET', url: `/api/templates/${missing}` })),
        await readById(() =>
          harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ template(id: "${missing}") { id name } }` } }),
        ),
        // Relations looked up by id inside a query: the parents, through their link table.
        await readById(() =>
          harness.inject({
            method: 'POST',
            url: '/api/graphql',
            payload: { query: `{ template(id: "${missing}") { id parents { id name } } }` },
          }),
        ),
        // A to-one relation: a resource's template, looked up by the resource row's template_id.
        await readById(
          () =>
            harness.inject({
              method: 'POST',
              url: '/api/graphql',
              payload: { query: `{ resource(id: "${missing}") { id template { id name } } }` },
            }),
          /from "resources"[\s\S]*"templates"/i,
        ),
      ];
      const plans = await plansAfterGrowth(
        texts,
        `INSERT INTO templates (id, name, template, labels, configuration, revision, created_at, updated_at, creator_id)
         SELECT gen_random_uuid(), 'name ' || n, 'slug_' || n, '{}', '{}', 1, now(), now(), gen_random_uuid() FROM generate_series(1, 3000) AS n`,
        'templates',
      );
      for (const { text, plan, scans } of plans) {
        // Every scan of templates is by primary key: no partial index (or the table) walked instead.
        expect(scans.length, `plan of ${text}`).toBeGreaterThan(0);
        for (const scan of scans) expect(scan, `plan of ${text}:\n${plan}`).toContain('templates_pkey');
      }
    });

    it('given GraphQL reverse relations (the versions of a template, of a source code), when their generic plans are made on an empty table and it grows, then each finds its rows by its foreign key index', async () => {
      const missing = randomUUID();
      const versionsOf = /from "source_code_versions"/i;
      const cases = [
        {
          index: 'source_code_versions_template_key_idx',
          ...(await readById(
            () =>
              harness.inject({
                method: 'POST',
                url: '/api/graphql',
                payload: { query: `{ template(id: "${missing}") { id sourceCodeVersions { id } } }` },
              }),
            versionsOf,
          )),
        },
        {
          index: 'source_code_versions_source_code_key_idx',
          ...(await readById(
            () =>
              harness.inject({
                method: 'POST',
                url: '/api/graphql',
                payload: { query: `{ sourceCode(id: "${missing}") { id sourceCodeVersions { id } } }` },
              }),
            versionsOf,
          )),
        },
      ];
      // 3,000 versions of 300 templates and 300 source codes.
      const plans = await plansAfterGrowth(
        cases,
        `INSERT INTO source_code_versions (id, revision, created_at, updated_at, source_code_folder, identifier, template_id, source_code_id)
         SELECT gen_random_uuid(), 1, now(), now(), '/', 'v' || n, t.id, s.id
           FROM generate_series(1, 3000) AS n
           JOIN (SELECT gen_random_uuid() AS id, k FROM generate_series(0, 299) AS k) AS t ON t.k = n % 300
           JOIN (SELECT gen_random_uuid() AS id, k FROM generate_series(0, 299) AS k) AS s ON s.k = (n / 10) % 300`,
        'source_code_versions',
      );
      for (const [i, { text, plan, scans }] of plans.entries()) {
        expect(scans.length, `plan of ${text}`).toBeGreaterThan(0);
        for (const scan of scans) expect(scan, `plan of ${text}:\n${plan}`).toContain(cases[i]?.index);
      }
    });
  });
else
  describe('reads by id keep the primary key in the plan made on an empty table', () => {
    it('was not run: TEST_DATABASE_URL is not set (PostgreSQL only: PGlite runs statements unprepared)', () => {
      expect(postgres).toBeUndefined();
    });
  });
