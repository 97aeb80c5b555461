import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { applyFilters, applyPage, type ListQuery, type ListSpec } from './list-query.js';
import type { EntityDeclaration, StoredValue } from '../model/entity.js';
import { declaredLinks, type ReadLink } from '../projections/catalog-projection.js';
import type { Db } from '../storage/kysely.js';

/** A catalog entity as the REST API shows it. */
export type CatalogView = Record<string, unknown> & { readonly id: string; readonly revision: number };

/** The REST view of a declared entity: the common fields and its own, as stored (nullable ones null when unset). */
export type DeclaredView<E extends EntityDeclaration> = {
  readonly id: string;
  readonly description: string;
  readonly labels: readonly string[];
  readonly status: string;
  readonly creatorId: string | null;
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
} & { readonly [K in keyof E['fields']]: StoredValue<E['fields'][K]> };

const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Row → view: camelCase keys, ISO timestamps, no tombstone column. */
function toView(row: Record<string, unknown>): CatalogView {
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'deleted_at') continue;
    view[camelCase(key)] = value instanceof Date ? value.toISOString() : value;
  }
  return view as CatalogView;
}

// The generic reader works on any catalog table, which Kysely's typed schema cannot express.
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
type AnySelect = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, Record<string, unknown>>;

/** Reads one catalog table the way every REST view needs it (all columns plus link id arrays). */
export function catalogReader(table: string, links: readonly ReadLink[] = []) {
  const select = (db: Db): AnySelect => {
    let query = (db as unknown as AnyDb).selectFrom(table).selectAll(table) as unknown as AnySelect;
    for (const link of links) {
      query = query.select(
        sql<string[]>`ARRAY(SELECT ${sql.ref(`${link.table}.${link.targetColumn}`)} FROM ${sql.table(link.table)} WHERE ${sql.ref(`${link.table}.${link.ownerColumn}`)} = ${sql.ref(`${table}.id`)} ORDER BY ${sql.ref(`${link.table}.ordinal`)})`.as(link.field),
      );
    }
    return query;
  };
  return {
    async find(db: Db, id: string): Promise<CatalogView | undefined> {
      const row = await select(db).where(sql.ref(`${table}.id`), '=', id).where(sql.ref(`${table}.deleted_at`), 'is', null).executeTakeFirst();
      return row ? toView(row) : undefined;
    },
    async list(db: Db, spec: ListSpec, query: ListQuery): Promise<{ rows: CatalogView[]; total: number }> {
      const page = applyPage(applyFilters(select(db), spec, query), spec, query);
      const count = applyFilters((db as unknown as AnyDb).selectFrom(table).select(sql<string>`count(*)`.as('total')) as unknown as AnySelect, spec, query);
      const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
      return { rows: rows.map(toView), total: Number(counted.total) };
    },
  };
}

/** The reader of a declared entity: its table, with each id list from its link table. */
export const declaredReader = (entity: EntityDeclaration) => catalogReader(entity.table, declaredLinks(entity));
