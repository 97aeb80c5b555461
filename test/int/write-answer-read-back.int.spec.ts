import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { databaseTargets } from '../support/databases.js';

/*
 * A write answers with its entity as the read model shows it. On PostgreSQL the projection hub reads
 * it back in the message of the batch that projects the write, after its COMMIT
 * (src/projections/follow-ups.ts), so the answer needs no statement of its own; PGlite answers a
 * message of several statements with its last result only, so there the answer reads it as before.
 * Either way the answer is what a read right after it shows.
 */

/** The lookup of a template by id, as the REST answer or GET sends it through the query builder. */
const isTemplateLookup = (text: string): boolean =>
  text.startsWith('select "templates"."id" as "id"') || text.startsWith('(select "templates"');

for (const target of databaseTargets()) {
  describe(`a write's answer, read back in the batch that projects it (${target.name})`, () => {
    let harness: HttpHarness;
    const statements: string[] = [];
    beforeAll(async () => {
      harness = await openHttpApp(target, { onQuery: (text) => statements.push(text) });
    });
    afterAll(async () => harness.close());

    /** The write's answer, the lookups it sent of its own, and what GET answers right after it. */
    async function answered(method: 'POST' | 'PATCH', url: string, payload: object, headers: Record<string, string> = {}) {
      statements.length = 0;
      const answer = await harness.inject({ method, url, payload, headers });
      const lookups = statements.filter(isTemplateLookup).length;
      const id = answer.json<{ id: string }>().id;
      const read = await harness.inject({ method: 'GET', url: `/api/templates/${id}` });
      return { answer, lookups, read };
    }

    const ownLookups = target.name === 'postgres' ? 0 : 1;

    it('given a create, when it answers, then the entity is the one a read shows, read in the batch (PostgreSQL) or after it (PGlite)', async () => {
      const { answer, lookups, read } = await answered('POST', '/api/templates', { name: 'Web', template: 'web_read_back', labels: ['a'] });
      expect(answer.statusCode).toBe(201);
      expect(lookups).toBe(ownLookups);
      expect(answer.json()).toEqual(read.json());
      expect(answer.headers.etag).toBe(read.headers.etag);
      expect(answer.json()).toMatchObject({ name: 'Web', labels: ['a'], revision: 1, parentIds: [] });
    });

    it('given an update and an action on it, when each answers, then each shows its own write, as a read after it does', async () => {
      const created = (
        await harness.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Db', template: 'db_read_back' } })
      ).json<{
        id: string;
      }>();
      const updated = await answered('PATCH', `/api/templates/${created.id}`, { description: 'the database' }, { 'if-match': '"1"' });
      expect(updated.answer.statusCode).toBe(200);
      expect(updated.lookups).toBe(ownLookups);
      expect(updated.answer.json()).toEqual(updated.read.json());
      expect(updated.answer.json()).toMatchObject({ description: 'the database', revision: 2 });

      const disabled = await answered('POST', `/api/templates/${created.id}/actions/disable`, {});
      expect(disabled.answer.statusCode).toBe(200);
      expect(disabled.lookups).toBe(ownLookups);
      expect(disabled.answer.json()).toEqual(disabled.read.json());
      expect(disabled.answer.json()).toMatchObject({ status: 'disabled', revision: 3 });
    });
  });
}

const postgres = databaseTargets().find((target) => target.name === 'postgres');
// The batch's read would be a statement prepared on one server connection and run on another.
if (postgres)
  describe("a write's answer behind a pooler that keeps no prepared statements (DATABASE_PREPARED_STATEMENTS=false)", () => {
    let harness: HttpHarness;
    const statements: string[] = [];
    beforeAll(async () => {
      harness = await openHttpApp(postgres, { env: { DATABASE_PREPARED_STATEMENTS: 'false' }, onQuery: (text) => statements.push(text) });
    });
    afterAll(async () => harness.close());

    it('given a create, when it answers, then it reads its entity in a statement of its own, as a read after it shows', async () => {
      statements.length = 0;
      const answer = await harness.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'Queue', template: 'queue_no_prepare' },
      });
      expect(answer.statusCode).toBe(201);
      expect(statements.filter(isTemplateLookup)).toHaveLength(1);
      const read = await harness.inject({ method: 'GET', url: `/api/templates/${answer.json<{ id: string }>().id}` });
      expect(answer.json()).toEqual(read.json());
    });
  });
