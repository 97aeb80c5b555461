/**
 * One page of a list and its exact total (REST Content-Range), in one statement when the matches are
 * few and in two when they are many.
 *
 * The statement gathers the first matches in order (at most a cap, `list_matches`), takes the page
 * from them and counts them. Fewer than the cap: that count is the total and the rows were found
 * once. A selective `__like` or `q` thus walks its trigram index once, not once for the page and
 * again for a count; for a fragment whose trigrams every name shares that walk costs time in
 * proportion to the table (on 50,000 templates three times what it costs on 10,000). As many as the cap: more may
 * match, and a separate count(*) answers the total — as before, but only where it is needed (an
 * ordered scan finds the cap cheaply when most rows match).
 */
import { sql, type Kysely, type QueryCreator, type SelectType } from 'kysely';
import { dynamicCreator, dynamicDb, rowsAs, type DynamicSelect, type DynamicTables } from '../../storage/dynamic.js';
import { PLAN_EACH_CALL } from '../../storage/prepared.js';
import { applyFilters, applyOrder, pageOrder } from './sql.js';
import type { ListQuery, ListSpec } from './spec.js';

/**
 * How many matches the page's statement gathers and counts before a separate count is needed (more
 * when the range reaches further). Gathering costs little when matches are few or most rows match;
 * between the two (a few percent of a large table) an ordered scan reads cap / fraction rows before
 * the count still runs. On 50,000 templates a cap of 1000 added up to 7 ms there, 250 up to 3 ms.
 */
export const MATCHES_COUNTED_WITH_PAGE = 250;

/** One page of a list and the number of rows matching the filter on all pages. */
export interface ListPage<Row> {
  readonly rows: Row[];
  readonly total: number;
}

// The table is only known at run time (from the spec): statements over the dynamic view of the
// database (src/storage/dynamic.ts); callers restore their row type.
type AnyDb = DynamicTables;
type AnySelect<O> = DynamicSelect<O>;

const MATCHES = 'list_matches';
const COUNTED = 'list_matches_counted';

/** What a list reads besides the query: the page's columns, and conditions every row of the list has. */
export interface PageSource<Row> {
  /**
   * The page's select over `spec.table` (unaliased): its columns and joins, no conditions or order.
   * Called on the statement's query creator, which holds `list_matches`.
   */
  readonly select: (from: QueryCreator<AnyDb>) => AnySelect<Row>;
  /** Conditions of the list itself, applied to the matches and the count alike (e.g. one resource's runs). */
  readonly scope?: <O>(qb: AnySelect<O>) => AnySelect<O>;
  /** Test seam: the matches gathered with the page (default MATCHES_COUNTED_WITH_PAGE). */
  readonly countedWithPage?: number;
}

/**
 * The total the page's statement proves, or undefined when a count must answer it. `cap` is at
 * least offset + limit + 1, so a full cap means rows past the page may be uncounted.
 */
export function provenTotal(query: ListQuery, rowCount: number, counted: number | undefined, cap: number): number | undefined {
  if (rowCount > 0) return counted !== undefined && counted < cap ? counted : undefined;
  // An empty first page of a non-empty range: nothing matches. Past the end, or `[n, 0]`: unknown.
  return query.offset === 0 && query.limit > 0 ? 0 : undefined;
}

/**
 * Runs `query` over `spec.table`: the page (rows as `source.select` shapes them, in the query's
 * order) and the exact total. Both statements are planned per call (PLAN_EACH_CALL), never from a
 * kept generic plan: how many rows a `__like` fragment or a filter value matches decides whether an
 * index or an ordered scan finds the page first.
 *
 * @example listWithTotal(db, templateListSpec, query, { select: (from) => from.selectFrom('templates').select(['id', 'name']) })
 */
export async function listWithTotal<DB, Row extends Record<string, unknown>>(
  db: Kysely<DB>,
  spec: ListSpec,
  query: ListQuery,
  source: PageSource<Row>,
): Promise<ListPage<Row>> {
  const anyDb = dynamicDb(db);
  const scope = source.scope ?? (<O>(qb: AnySelect<O>) => qb);
  const { column, idColumn } = pageOrder(spec, query);
  const cap = Math.max(source.countedWithPage ?? MATCHES_COUNTED_WITH_PAGE, query.offset + query.limit + 1);

  // The sort key and id of the first `cap` matches; the page is a slice of them, in the same order.
  const keys = [...new Set([column, idColumn])].map((name) => sql.ref(`${spec.table}.${name}`).as(name));
  // Literal LIMIT/OFFSET, as in applyPage: a generic plan would not know them.
  const matches = applyOrder(scope(applyFilters(anyDb.selectFrom(spec.table).select(keys), spec, query)), spec, query, spec.table).limit(
    sql.lit(cap),
  );
  const pageIds = applyOrder(anyDb.selectFrom(MATCHES).select(sql.ref(`${MATCHES}.${idColumn}`).as(idColumn)), spec, query, MATCHES)
    .offset(sql.lit(query.offset))
    .limit(sql.lit(query.limit));
  const from = dynamicCreator(anyDb.with(MATCHES, () => matches));
  const page = applyOrder(
    source
      .select(from)
      .select(sql<string>`(SELECT count(*) FROM ${sql.table(MATCHES)})`.as(COUNTED))
      .where(sql.ref(`${spec.table}.${idColumn}`), 'in', pageIds),
    spec,
    query,
    spec.table,
  ).modifyEnd(sql.raw(PLAN_EACH_CALL));
  const found = (await page.execute()) as (Row & { [COUNTED]?: string })[];

  const rows = rowsAs<Row>(found.map(({ [COUNTED]: _, ...row }) => row));
  const counted = found[0]?.[COUNTED];
  const proven = provenTotal(query, rows.length, counted === undefined ? undefined : Number(counted), cap);
  if (proven !== undefined) return { rows, total: proven };
  const count = scope(applyFilters(anyDb.selectFrom(spec.table).select(sql<string>`count(*)`.as('total')), spec, query)).modifyEnd(
    sql.raw(PLAN_EACH_CALL),
  );
  // count(*) is a bigint, which both drivers return as a string.
  return { rows, total: Number((await count.executeTakeFirstOrThrow()).total) };
}

/**
 * listWithTotal selecting only `columns` of the spec's table, typed from the database schema.
 *
 * @example listPage(db, templateListSpec, parseListQuery(templateListSpec, request.query), ['id', 'name'])
 */
export async function listPage<DB, TB extends keyof DB & string, C extends keyof DB[TB] & string>(
  db: Kysely<DB>,
  spec: ListSpec<TB>,
  query: ListQuery,
  columns: readonly C[],
): Promise<ListPage<{ [K in C]: SelectType<DB[TB][K]> }>> {
  const table: string = spec.table;
  const page = await listWithTotal(db, spec, query, {
    select: (from) => from.selectFrom(table).select(columns.map((column) => sql.ref(`${table}.${column}`).as(column))),
  });
  // Kysely cannot type a select over a table chosen by a type parameter; the signature restores
  // the row type from the same DB, table and columns the caller passed.
  return { rows: rowsAs<{ [K in C]: SelectType<DB[TB][K]> }>(page.rows), total: page.total };
}
