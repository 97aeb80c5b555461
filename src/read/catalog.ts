import { CompiledQuery, sql, type QueryCreator, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { listWithTotal, type ListQuery, type ListSpec } from './list-query.js';
import type { EntityDeclaration, StoredValue } from '../model/entity.js';
import { declaredLinks, declaredTableColumns, type ReadLink } from '../projections/catalog-projection.js';
import { batchedLookup, idGroups, sameTurnLoader } from '../storage/id-batch.js';
import { liveById } from './live-by-id.js';
import type { Db } from '../storage/kysely.js';
import type { FollowingRead } from '../projections/follow-ups.js';
import { dynamicCreator, type DynamicSelect } from '../storage/dynamic.js';

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

/** Row → view: camelCase keys (`viewKeys` holds the known ones), ISO timestamps, no tombstone column. */
function toView(row: Record<string, unknown>, viewKeys: ReadonlyMap<string, string>): CatalogView {
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'deleted_at') continue;
    view[viewKeys.get(key) ?? camelCase(key)] = value instanceof Date ? value.toISOString() : value;
  }
  return view as CatalogView;
}

// The generic reader works on any catalog table, which Kysely's typed schema cannot express.
type AnySchema = Record<string, Record<string, unknown>>;
type AnySelect = SelectQueryBuilder<AnySchema, string, Record<string, unknown>>;

/**
 * Reads one catalog table the way every REST view needs it: `columns` (all of the table's) plus link
 * id arrays. The columns are named, not `table.*`: a `*` select is never prepared
 * (src/storage/prepared.ts), and planning a lookup by id on a table with a dozen indexes cost
 * PostgreSQL more than running it (0.26 against 0.07 ms, the read-back of every create).
 */
export function catalogReader(table: string, columns: readonly string[], links: readonly ReadLink[] = []) {
  // Built once: the selections, the view's key names and (on first use) the reads by id's SQL, so a
  // read costs Kysely no compiling and the statement namer the same string each time.
  const selections = [
    ...columns.map((column) => sql.ref(`${table}.${column}`).as(column)),
    ...links.map((link) => {
      const column = (name: string) => sql.ref(`${link.table}.${name}`);
      return sql<string[]>`ARRAY(SELECT ${column(link.targetColumn)} FROM ${sql.table(link.table)}
        WHERE ${column(link.ownerColumn)} = ${sql.ref(`${table}.id`)} ORDER BY ${column('ordinal')})`.as(link.field);
    }),
  ];
  const viewKeys = new Map([...columns, ...links.map((link) => link.field)].map((key) => [key, camelCase(key)]));
  // On the database, or on a list statement's query creator (which holds its WITH).
  const select = (from: Db | QueryCreator<AnySchema>): AnySelect => dynamicCreator(from).selectFrom(table).select(selections);
  let byId: string | undefined;
  let byIds: string | undefined;
  const lookupById = (db: Db): string =>
    (byId ??= select(db)
      .where(sql.ref(`${table}.id`), '=', '00000000-0000-0000-0000-000000000000')
      .where(liveById(`${table}.deleted_at`))
      .compile().sql);
  /** The live rows of `ids` (lower case, as PostgreSQL answers a uuid): the lookup by id for one, its batched form for more. */
  const read = async (db: Db, ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> => {
    byIds ??= batchedLookup(lookupById(db));
    const found = new Map<string, Record<string, unknown>>();
    for (const group of idGroups(ids)) {
      const { rows } = await db.executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(group.length === 1 ? lookupById(db) : byIds, group),
      );
      for (const row of rows) found.set(String(row.id), row);
    }
    return found;
  };
  // Reads by id of one turn on the same database share statements (src/storage/id-batch.ts): the
  // projection hub wakes the writers of a batch together, so their read-backs start in one turn.
  const load = sameTurnLoader(read);
  return {
    /**
     * A row folded from events (src/read/as-of.ts) in the view's shape: what the projection left
     * unset is null, as the table would hold it.
     */
    present(row: Readonly<Record<string, unknown>>): CatalogView {
      const complete: Record<string, unknown> = {};
      for (const key of viewKeys.keys()) complete[key] = row[key] ?? null;
      return toView(complete, viewKeys);
    },
    /** `find`'s lookup of `id` as a statement to send elsewhere (a write's answer: src/projections/follow-ups.ts); `view` reads its row. */
    findStatement(db: Db, id: string): FollowingRead {
      return { text: lookupById(db), parameters: [id.toLowerCase()] };
    },
    /** A row of `findStatement` in the view's shape. */
    view(row: Record<string, unknown>): CatalogView {
      return toView(row, viewKeys);
    },
    /** The entity `id`, or undefined if there is none (or it is deleted). */
    async find(db: Db, id: string): Promise<CatalogView | undefined> {
      // Ids are canonical lower case (uuidParam), as PostgreSQL returns a uuid.
      const row = await load(db, id.toLowerCase());
      return row ? toView(row, viewKeys) : undefined;
    },
    /** A page of the list; `readable` limits it to the rows the caller may read (src/read/entity-access.ts). */
    async list(db: Db, spec: ListSpec, query: ListQuery, readable?: RawBuilder<boolean>): Promise<{ rows: CatalogView[]; total: number }> {
      const scope = readable === undefined ? undefined : <O>(qb: DynamicSelect<O>) => qb.where(readable);
      const { rows, total } = await listWithTotal(db, spec, query, { select, ...(scope && { scope }) });
      return { rows: rows.map((row) => toView(row, viewKeys)), total };
    },
  };
}

/** The reader of a declared entity: its table, with each id list from its link table. */
export const declaredReader = (entity: EntityDeclaration) =>
  catalogReader(entity.table, Object.keys(declaredTableColumns(entity)), declaredLinks(entity));
