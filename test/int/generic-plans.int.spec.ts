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
    const readById = async (request: () => Promise<unknown>, pattern = /"templates"\."id" = \$\d/): Promise<{ text: string; parameters: readonly unknown[] }> => {
      statements.length = 0;
      await request();
      // The last such statement: a relation's lookup comes with (or after) its root's.
      const found = statements.findLast(({ text }) => pattern.test(text));
      if (!found) throw new Error(`no read by id among: ${statements.map(({ text }) => text).join('\n')}`);
      return found;
    };

    it('given the REST and GraphQL reads by id (and relations read by id, to-one and through a link table), when their generic plans are made on an empty table and the table grows, then all look rows up by primary key', async () => {
      const missing = randomUUID();
      const texts = [
        await readById(() => harness.inject({ method: 'GET', url: `/api/templates/${missing}` })),
        await readById(() => harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ template(id: "${missing}") { id name } }` } })),
        // Relations looked up by id inside a query: the parents, through their link table.
        await readById(() => harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ template(id: "${missing}") { id parents { id name } } }` } })),
        // A to-one relation: a resource's template, looked up by the resource row's template_id.
        await readById(
          () => harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ resource(id: "${missing}") { id template { id name } } }` } }),
          /from "resources"[\s\S]*"templates"/i,
        ),
      ];
      const client = new pg.Client({ connectionString: harness.database.url });
      await client.connect();
      try {
        const execute = (i: number): string =>
          `EXECUTE read_${String(i)}(${(texts[i]?.parameters ?? []).map((value) => client.escapeLiteral(String(value))).join(', ')})`;
        for (const [i, { text }] of texts.entries()) {
          await client.query(`PREPARE read_${String(i)} AS ${text}`);
          // Past the five custom plans: the generic plan is made now, on an empty table.
          for (let run = 0; run < 7; run++) await client.query(execute(i));
        }
        await client.query(
          `INSERT INTO templates (id, name, template, labels, configuration, revision, created_at, updated_at, creator_id)
           SELECT gen_random_uuid(), 'name ' || n, 'slug_' || n, '{}', '{}', 1, now(), now(), gen_random_uuid() FROM generate_series(1, 3000) AS n`,
        );
        for (const [i] of texts.entries()) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${execute(i)}`);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          // Every scan of templates is by primary key: no partial index (or the table) walked instead.
          const scans = plan.split('\n').filter((line) => /Scan.* on templates\b/.test(line));
          expect(scans.length, `plan of ${texts[i]?.text ?? ''}`).toBeGreaterThan(0);
          for (const scan of scans) expect(scan, `plan of ${texts[i]?.text ?? ''}:\n${plan}`).toContain('templates_pkey');
        }
      } finally {
        await client.end();
      }
    });

    it('given GraphQL reverse relations (the versions of a template, of a source code), when their generic plans are made on an empty table and it grows, then each finds its rows by its foreign key index', async () => {
      const missing = randomUUID();
      const versionsOf = /from "source_code_versions"/i;
      const cases = [
        { index: 'source_code_versions_template_key_idx', ...(await readById(() => harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ template(id: "${missing}") { id sourceCodeVersions { id } } }` } }), versionsOf)) },
        { index: 'source_code_versions_source_code_key_idx', ...(await readById(() => harness.inject({ method: 'POST', url: '/api/graphql', payload: { query: `{ sourceCode(id: "${missing}") { id sourceCodeVersions { id } } }` } }), versionsOf)) },
      ];
      const client = new pg.Client({ connectionString: harness.database.url });
      await client.connect();
      try {
        const execute = (i: number): string =>
          `EXECUTE reverse_${String(i)}(${(cases[i]?.parameters ?? []).map((value) => client.escapeLiteral(String(value))).join(', ')})`;
        for (const [i, { text }] of cases.entries()) {
          await client.query(`PREPARE reverse_${String(i)} AS ${text}`);
          for (let run = 0; run < 7; run++) await client.query(execute(i));
        }
        // 3,000 versions of 300 templates and 300 source codes.
        await client.query(
          `INSERT INTO source_code_versions (id, revision, created_at, updated_at, source_code_folder, identifier, template_id, source_code_id)
           SELECT gen_random_uuid(), 1, now(), now(), '/', 'v' || n, t.id, s.id
             FROM generate_series(1, 3000) AS n
             JOIN (SELECT gen_random_uuid() AS id, k FROM generate_series(0, 299) AS k) AS t ON t.k = n % 300
             JOIN (SELECT gen_random_uuid() AS id, k FROM generate_series(0, 299) AS k) AS s ON s.k = (n / 10) % 300`,
        );
        for (const [i, { text, index }] of cases.entries()) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${execute(i)}`);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          const scans = plan.split('\n').filter((line) => /Scan.* on source_code_versions\b/.test(line));
          expect(scans.length, `plan of ${text}`).toBeGreaterThan(0);
          for (const scan of scans) expect(scan, `plan of ${text}:\n${plan}`).toContain(index);
        }
      } finally {
        await client.end();
      }
    });
  });
else
  describe('reads by id keep the primary key in the plan made on an empty table', () => {
    it('was not run: TEST_DATABASE_URL is not set (PostgreSQL only: PGlite runs statements unprepared)', () => {
      expect(postgres).toBeUndefined();
    });
  });
