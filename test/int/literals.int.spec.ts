import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, inlineParameters, quoteLiteral } from '../../src/storage/literals.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

/*
 * A batch's held writes go with its COMMIT as one text, their parameters written in as literals
 * (src/storage/literals.ts): each literal must mean to PostgreSQL exactly what the parameter did.
 */

const TRICKY = [
  "it's",
  'back\\slash \\n not a newline',
  String.raw`{"json": "with \"quotes\" and \\ escapes \u00e9"}`,
  'line\nbreak\ttab',
  'émoji 🚀 and 中文',
  "E'not an escape'",
  '$1 inside a value',
  '',
];

for (const target of databaseTargets()) {
  describe(`parameters written in as literals (${target.name})`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await target.create({ migrate: false });
    });
    afterAll(async () => database.close());

    it('reads every text as its parameter reads, cast or not', async () => {
      for (const value of TRICKY) {
        const statement = 'SELECT $1::text AS cast, $1 AS plain, length($1::text) AS n';
        const viaParameter = await database.pool.query(statement, [value]);
        const viaLiteral = await database.pool.query(inlineParameters(statement, [value]));
        expect(viaLiteral.rows).toEqual(viaParameter.rows);
      }
    });

    it('reads an array literal of texts as node-postgres sends the array (the append sends events so)', async () => {
      const documents = TRICKY.map((text) => JSON.stringify({ text }));
      const statement = 'SELECT $1::text[] AS texts, $2::jsonb[] AS documents';
      const viaArrays = await database.pool.query(statement, [TRICKY, documents]);
      const viaLiterals = await database.pool.query(statement, [arrayLiteral(TRICKY), arrayLiteral(documents)]);
      expect(viaLiterals.rows).toEqual(viaArrays.rows);
      expect((viaLiterals.rows[0] as { texts: string[] }).texts).toEqual(TRICKY);
    });

    it('reads JSON documents, arrays, numbers, booleans and NULL as their parameters read', async () => {
      const statement =
        'SELECT $1::jsonb AS doc, $2::text[] AS list, $3::int AS n, $4::boolean AS flag, $5::text AS nothing, $6::bigint AS big';
      const params = [JSON.stringify({ a: TRICKY, nested: { quote: "'", slash: '\\' } }), '{"a b","c\\"d",e}', 42, true, null, 2n ** 60n];
      const viaParameter = await database.pool.query(
        statement,
        params.map((p) => (typeof p === 'bigint' ? String(p) : p)),
      );
      const viaLiteral = await database.pool.query(inlineParameters(statement, params));
      expect(viaLiteral.rows).toEqual(viaParameter.rows);
    });
  });
}

describe('inlineParameters', () => {
  it('replaces each placeholder, the tenth not read as the first', () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${String(i + 1)}`);
    expect(inlineParameters('SELECT $1, $10', params)).toBe("SELECT 'v1', 'v10'");
  });

  it('refuses a placeholder without a parameter and values with more than one text form', () => {
    expect(() => inlineParameters('SELECT $2', ['one'])).toThrow(RangeError);
    expect(() => inlineParameters('SELECT $1', [{ a: 1 }])).toThrow(/only text, numbers and booleans/);
    expect(() => inlineParameters('SELECT $1', [['a']])).toThrow(TypeError);
  });

  it('quotes with an escape string only where a backslash needs one', () => {
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral('a\\b')).toBe("E'a\\\\b'");
  });
});
