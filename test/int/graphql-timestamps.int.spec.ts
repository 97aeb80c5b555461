import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/storage/kysely.js';
import { isoFromUtcText, utcText } from '../../src/graphql/timestamps.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

const INSTANTS = [
  '2026-11-21T20:45:24.855123Z',
  '2026-03-29T01:30:00Z', // a DST change in Europe
  '1999-12-31T23:59:59.9999Z',
  '2000-02-29T12:00:00.000001Z',
  '1970-01-01T00:00:00Z',
];

for (const target of databaseTargets()) {
  describe(`GraphQL's timestamp text on ${target.name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await target.create({ migrate: false });
    });
    afterAll(() => db.close());

    it('names the same instant as the Date node-postgres reads, whatever the session time zone', async () => {
      const kysely = createDb(db.pool);
      const values = sql.join(INSTANTS.map((instant) => sql`(${instant}::timestamptz)`));
      const query = sql<{
        raw: Date | string;
        text: string;
      }>`select at as raw, ${utcText('t.at')} as text from (values ${values}) as t(at)`.compile(kysely);
      const client = await db.pool.connect();
      try {
        for (const zone of ['UTC', 'America/St_Johns', 'Asia/Kathmandu']) {
          await client.query(`set time zone '${zone}'`);
          const { rows } = await client.query<{ raw: Date | string; text: string }>(query.sql, query.parameters);
          expect(
            rows.map((row) => isoFromUtcText(row.text)),
            zone,
          ).toEqual(rows.map((row) => new Date(row.raw).toISOString()));
        }
      } finally {
        await client.query('reset time zone');
        client.release();
      }
    });
  });
}
