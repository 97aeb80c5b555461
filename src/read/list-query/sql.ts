/**
 * Compiles a validated ListQuery onto Kysely select builders. The engine only adds WHERE, ORDER BY,
 * OFFSET and LIMIT: the caller picks the columns (GraphQL selects only what was asked for). Column
 * names come from the spec, never from the client, and every client value is a bound parameter.
 */
import { expressionBuilder, sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Condition, ListQuery, ListSpec } from './spec.js';

// Table and column names are only known at run time (from the spec), so conditions are built over a
// schema where every name is allowed, and the result (an Expression<SqlBool>) fits any builder.
type AnyDb = Record<string, Record<string, unknown>>;
const eb = expressionBuilder<AnyDb, string>();

const idColumnOf = (spec: ListSpec): string => spec.idColumn ?? 'id';

/** A column of the spec's table, qualified so link subqueries and callers' joins stay unambiguous. */
const columnRef = (spec: ListSpec, column: string) => sql.ref(`${spec.table}.${column}`);

/** `%text%` with LIKE's own wildcards and escape character taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function toExpression(spec: ListSpec, condition: Condition): Expression<SqlBool> {
  switch (condition.kind) {
    case 'compare':
      return eb(columnRef(spec, condition.column), condition.operator, condition.value);
    case 'oneOf':
      // `IN ()` is a syntax error; "one of nothing" matches nothing.
      return condition.values.length === 0 ? sql<SqlBool>`false` : eb(columnRef(spec, condition.column), 'in', condition.values);
    case 'isNull':
      return eb(columnRef(spec, condition.column), condition.negated ? 'is not' : 'is', null);
    case 'contains': {
      // Backslash is PostgreSQL's default LIKE escape character, which containsPattern relies on.
      const pattern = containsPattern(condition.text);
      return eb.or(condition.columns.map((column) => eb(columnRef(spec, column), 'ilike', pattern)));
    }
    case 'hasAll':
      // One parameter per element: no driver-specific array serialization, and @> can use the GIN index.
      return eb(columnRef(spec, condition.column), '@>', sql<string[]>`ARRAY[${sql.join(condition.values)}]::text[]`);
    case 'linked': {
      const { link } = condition;
      if (condition.ids.length === 0) return sql<SqlBool>`false`;
      return eb.exists(
        eb
          .selectFrom(link.table)
          .select(sql.lit(1).as('one'))
          .where(sql.ref(`${link.table}.${link.ownerColumn}`), '=', columnRef(spec, idColumnOf(spec)))
          .where(sql.ref(`${link.table}.${link.targetColumn}`), 'in', condition.ids),
      );
    }
  }
}

/**
 * Adds the query's conditions (and `deleted_at IS NULL` for soft-deleting specs) to a select over
 * `spec.table` (unaliased). Works for the page query and for the count alike.
 */
export function applyFilters<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  spec: ListSpec,
  query: ListQuery,
): SelectQueryBuilder<DB, TB, O> {
  const conditions = query.conditions.map((condition) => toExpression(spec, condition));
  if (spec.softDelete) conditions.unshift(eb(columnRef(spec, 'deleted_at'), 'is', null));
  return conditions.reduce((next, condition) => next.where(condition), qb);
}

/**
 * Orders by the sort column, then by id in the same direction so that equal sort values still
 * have one total order and OFFSET pages neither repeat nor skip rows; then applies OFFSET/LIMIT.
 */
export function applyPage<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  spec: ListSpec,
  query: ListQuery,
): SelectQueryBuilder<DB, TB, O> {
  // Literals, not parameters: a prepared statement's generic plan does not know a parameter's value
  // and may plan a LIMIT 100 page as if it read a tenth of the table (both are validated integers).
  return applyOrder(qb, spec, query, spec.table).offset(sql.lit(query.offset)).limit(sql.lit(query.limit));
}

/**
 * Orders by the sort column, then by id in the same direction (applyPage's order), both named on
 * `table`: the spec's table, or a derived table that kept those columns' names.
 */
export function applyOrder<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  spec: ListSpec,
  query: ListQuery,
  table: string,
): SelectQueryBuilder<DB, TB, O> {
  const { column, idColumn, direction } = pageOrder(spec, query);
  const sorted = qb.orderBy(sql.ref(`${table}.${column}`), direction);
  return column === idColumn ? sorted : sorted.orderBy(sql.ref(`${table}.${idColumn}`), direction);
}

/** The order applyPage gives a page: the sort column, then the id column, in one direction. */
export function pageOrder(spec: ListSpec, query: ListQuery): { column: string; idColumn: string; direction: 'asc' | 'desc' } {
  return { column: query.sort.column, idColumn: idColumnOf(spec), direction: query.sort.direction === 'ASC' ? 'asc' : 'desc' };
}

/**
 * The REST `Content-Range` header: `templates 0-24/319`, or `templates *\/319` for an empty page.
 *
 * @param rowCount - rows on this page; `total` - rows matching the filter on all pages.
 */
export function contentRange(spec: ListSpec, query: ListQuery, rowCount: number, total: number): string {
  if (rowCount === 0) return `${spec.resource} */${total}`;
  return `${spec.resource} ${query.offset}-${query.offset + rowCount - 1}/${total}`;
}
