import { createRequire } from 'node:module';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { cacheResultShapes } from '../../src/storage/result-shapes.js';

interface Column {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format: string;
}
interface PgResult {
  addFields(columns: readonly Column[]): void;
  parseRow(values: readonly (string | null)[]): Record<string, unknown>;
}
type ResultClass = (new (rowMode?: string, types?: unknown) => PgResult) & { prototype: { addFields: unknown } };

const Result = createRequire(import.meta.url)('pg/lib/result.js') as ResultClass;
const pgAddFields = Result.prototype.addFields;

const TEXT = 25;
const INT4 = 23;
const TIMESTAMPTZ = 1184;
const JSONB = 3802;
const column = (name: string, dataTypeID: number): Column => ({ name, dataTypeID, format: 'text' });

/** Rows as pg's own addFields prepares them, then as the cached one does, for the same columns and values. */
function bothWays(columns: readonly Column[], values: readonly (string | null)[], types?: unknown) {
  const current = Result.prototype.addFields;
  Result.prototype.addFields = pgAddFields;
  const before = new Result(undefined, types);
  before.addFields(columns);
  const expected = before.parseRow(values);
  Result.prototype.addFields = current;
  cacheResultShapes();
  const rows = [0, 1].map(() => {
    const result = new Result(undefined, types);
    result.addFields(columns.map((c) => ({ ...c })));
    return result.parseRow(values);
  });
  return { expected, rows };
}

describe('result shapes (pg result columns prepared once per set of columns)', () => {
  it('parses rows exactly as pg does, on first sight of the columns and after', () => {
    const columns = [column('id', TEXT), column('revision', INT4), column('created_at', TIMESTAMPTZ), column('fields', JSONB)];
    const { expected, rows } = bothWays(columns, ['a', '7', '2026-11-29 07:00:00+00', '{"a":[1,2]}']);
    expect(expected).toEqual({ id: 'a', revision: 7, created_at: new Date('2026-11-29T07:00:00.000Z'), fields: { a: [1, 2] } });
    for (const row of rows) expect(row).toEqual(expected);
    // Each row is its own object.
    expect(rows[0]).not.toBe(rows[1]);
  });

  it('tells apart columns that differ only in a type or a name', () => {
    const asText = bothWays([column('n', TEXT)], ['7']);
    const asNumber = bothWays([column('n', INT4)], ['7']);
    const renamed = bothWays([column('m', INT4)], ['7']);
    expect(asText.rows[1]).toEqual({ n: '7' });
    expect(asNumber.rows[1]).toEqual({ n: 7 });
    expect(renamed.rows[1]).toEqual({ m: 7 });
  });

  it('keeps a column named __proto__ a column, and nulls null', () => {
    const { expected, rows } = bothWays([column('__proto__', TEXT), column('x', TEXT)], ['value', null]);
    for (const row of rows) {
      expect(row).toEqual(expected);
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('value');
      expect(row.x).toBeNull();
    }
  });

  it("uses a query's own type parsers apart from the defaults", () => {
    const types = { getTypeParser: (oid: number) => (value: string) => `${String(oid)}:${value}` };
    const own = bothWays([column('n', INT4)], ['7'], types);
    expect(own.rows[1]).toEqual({ n: '23:7' });
    expect(bothWays([column('n', INT4)], ['7']).rows[1]).toEqual({ n: 7 });
    expect((pg.types.getTypeParser as (oid: number, format: string) => (value: string) => unknown)(INT4, 'text')('7')).toBe(7);
  });
});
