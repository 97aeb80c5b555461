import type { Kysely, QueryCreator, SelectQueryBuilder } from 'kysely';

/**
 * Statements over tables and columns chosen at run time (an entity declaration names them; the
 * GraphQL loader and the list engine build statements for every entity). Kysely's typed schema
 * cannot follow a table name held in a string, so those statements are built over this untyped view
 * of the database; this file is the one place the typed view is set aside, and callers give their
 * row types back where they read results.
 */

/** Any table, any column. */
export type DynamicTables = Record<string, Record<string, unknown>>;

/** The query builder over any table. */
export type DynamicDb = Kysely<DynamicTables>;

/** A select over any table (its output row typed as the caller says). */
export type DynamicSelect<O = Record<string, unknown>> = SelectQueryBuilder<DynamicTables, string, O>;

/** The database as statements over run-time tables see it. */
// The same instance: only the compile-time table map differs (run-time tables are not in Database).
export const dynamicDb = <DB>(db: Kysely<DB>): DynamicDb => db as unknown as DynamicDb;

/**
 * A select built over run-time tables, as a plain DynamicSelect: joins and `sql` references give it
 * a type Kysely cannot simplify, though it selects what the caller built it to.
 */
export const dynamicSelect = <O = Record<string, unknown>>(query: unknown): DynamicSelect<O> => query as DynamicSelect<O>;

/** A query creator (a `WITH …` prefix) over run-time tables; a typed database is one too. */
export const dynamicCreator = (creator: unknown): QueryCreator<DynamicTables> => creator as QueryCreator<DynamicTables>;

/**
 * Rows a statement over run-time tables answered, given back the type the caller's select built
 * them to (Kysely typed them as `Record<string, unknown>`). The one place such rows are retyped.
 */
export const rowsAs = <Row>(rows: readonly Record<string, unknown>[]): Row[] => rows as Row[];
