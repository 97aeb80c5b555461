import { createRequire } from 'node:module';

/**
 * node-postgres prepares every result for its rows from the result's column descriptions: a parser
 * per column and an empty row to copy, built through a dictionary-mode object (about 5 µs for
 * sixteen columns, on every statement that returns rows, several per request). A statement returns
 * the same columns each time, so what is built for one set of columns (names, types and formats, in
 * order) is kept and reused (0.2 µs), and the rows come out exactly as before.
 *
 * The parsers are pg's own (`types.getTypeParser`, or a query's own `types`), looked up on a shape's
 * first sight: the service installs no custom parsers after start. Bounded: past SHAPES_LIMIT
 * distinct shapes the cache starts over (GraphQL selections add shapes; the service's own are a few
 * hundred).
 */
const SHAPES_LIMIT = 2000;

interface FieldDescription {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format?: string;
}

interface Shape {
  readonly columns: readonly FieldDescription[];
  readonly parsers: ((value: unknown) => unknown)[];
  readonly emptyRow: Record<string, null>;
}

interface TypeParsers {
  getTypeParser(oid: number, format: string): (value: unknown) => unknown;
}

interface ResultInternals {
  fields: readonly FieldDescription[];
  _parsers: ((value: unknown) => unknown)[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null>;
  _types: TypeParsers | undefined;
}

const require = createRequire(import.meta.url);

function sameColumns(known: readonly FieldDescription[], described: readonly FieldDescription[]): boolean {
  if (known.length !== described.length) return false;
  for (let i = 0; i < known.length; i++) {
    const a = known[i];
    const b = described[i];
    if (a?.name !== b?.name || a?.dataTypeID !== b?.dataTypeID || a?.format !== (b?.format ?? 'text')) return false;
  }
  return true;
}

/** Installs the cached column preparation on pg's Result (idempotent). Throws if pg no longer has the method it replaces. */
export function cacheResultShapes(): void {
  const Result = require('pg/lib/result.js') as { prototype: ResultInternals & { addFields?: unknown } };
  const defaults = (require('pg') as { types: TypeParsers }).types;
  const original = Result.prototype.addFields;
  if (typeof original !== 'function') throw new TypeError("pg's Result has no addFields: result-shapes.ts needs updating for this pg");
  if ((original as { cachedShapes?: boolean }).cachedShapes) return;
  const byTypes = new WeakMap<TypeParsers, Map<number, Shape[]>>();

  function addFields(this: ResultInternals, descriptions: readonly FieldDescription[]): void {
    this.fields = descriptions;
    const types = this._types ?? defaults;
    let shapes = byTypes.get(types);
    if (!shapes) byTypes.set(types, (shapes = new Map<number, Shape[]>()));
    // A cheap hash to find candidates, then an exact comparison: building a string key of every
    // name cost half of what it saved.
    let hash = descriptions.length;
    for (const d of descriptions) hash = (Math.imul(hash, 31) + d.dataTypeID + Math.imul(d.name.length, 131) + d.name.charCodeAt(0)) | 0;
    const candidates = shapes.get(hash);
    let shape = candidates?.find((candidate) => sameColumns(candidate.columns, descriptions));
    if (!shape) {
      // As pg builds them: a null-prototype object first, so a column named `__proto__` is a column.
      const row = Object.create(null) as Record<string, null>;
      const parsers = descriptions.map((d) => {
        row[d.name] = null;
        return types.getTypeParser(d.dataTypeID, d.format ?? 'text');
      });
      shape = {
        columns: descriptions.map((d) => ({ name: d.name, dataTypeID: d.dataTypeID, format: d.format ?? 'text' })),
        parsers,
        emptyRow: { ...row },
      };
      if (shapes.size >= SHAPES_LIMIT) shapes.clear();
      const bucket = shapes.get(hash);
      if (bucket) bucket.push(shape);
      else shapes.set(hash, [shape]);
    }
    // pg leaves the previous parsers in place for a result without columns; so does this.
    if (descriptions.length > 0) this._parsers = shape.parsers;
    this._prebuiltEmptyResultObject = shape.emptyRow;
  }
  (addFields as { cachedShapes?: boolean }).cachedShapes = true;
  Result.prototype.addFields = addFields;
}
