import { sql, type RawBuilder } from 'kysely';
import { allows, PRIVATE_WHEN_OWNED, type PermissionResource } from '../model/permissions.js';
import { readableRows } from '../read/entity-access.js';
import { accessOf, type EntityAccess } from '../edge/entity-permissions.js';
import type { Principal } from '../model/principal.js';
import { favoritesAmong } from '../read/favorites.js';
import { dynamicDb, dynamicSelect, type DynamicSelect } from '../storage/dynamic.js';
import type { Db } from '../storage/kysely.js';
import type { ObjectTypeDef, RelationField, ToManyField, ToOneField, ReverseField } from './model.js';
import { OBJECT_TYPES } from './model.js';
import { liveById } from '../read/live-by-id.js';
import { withId, type LoadPlan } from './plan.js';
import { isoFromUtcText, utcText } from './timestamps.js';

/**
 * Runs load plans: presents stored rows as GraphQL objects. A root field's relations are read in its
 * own statement: to-one relations (and theirs) as LATERAL lookups, list relations as a LATERAL json_agg
 * per relation. List relations below that first level are loaded for all parent rows of a level in
 * one statement per relation (seed rule 3). So `resources { template creator }`, `templates {
 * executors }` and `executors { sourceCode storage integrationIds }` are one statement each, and the
 * number of statements depends on the query's shape, never on the number of rows.
 */

// Tables and columns are chosen at run time from the model: statements are built over the dynamic
// view of the database (src/storage/dynamic.ts).
/** A select over any read table (the loader builds statements for every type). */
export type AnySelect = DynamicSelect;
type Row = Record<string, unknown>;
/** One object as GraphQL answers it. */
export type GraphObject = Record<string, unknown>;

/** What loading needs: the database, the caller's permissions and the settings. */
export interface LoadContext {
  readonly db: Db;
  readonly principal: Principal;
  readonly baseUrl: string;
  /** Whether requests wait for approval (the lifecycle actions `availableActions` lists depend on it). */
  readonly approvalFlow: boolean;
}

/**
 * An entity as it was (src/read/as-of.ts) standing in for its row in one statement: the root
 * statement of `entity(id, at:)` reads its table and its own link tables from the folded row, so
 * every field and to-one relation comes out exactly as for today's row. Other tables (related
 * entities, reverse relations) are read as they are now.
 */
export interface AsOfSource {
  readonly table: string;
  /** The folded row: columns by name (JSON-encoded into the statement). */
  readonly row: Readonly<Record<string, unknown>>;
  /** Each link table of the entity → the target ids it held then, in order. */
  readonly links: ReadonlyMap<string, readonly string[]>;
}

/** `(SELECT * FROM jsonb_populate_record(NULL::<table>, <row>)) AS <table>`: the folded row under the table's name. */
const asOfTable = (asOf: AsOfSource) =>
  sql`(SELECT * FROM jsonb_populate_record(NULL::${sql.table(asOf.table)}, ${JSON.stringify(asOf.row)}::jsonb))`.as(asOf.table);

/** A link table as it was for the folded row: `(owner, target, ordinal)` rows from the ids it held. */
const asOfLinks = (
  asOf: AsOfSource,
  field: { table: string; ownerColumn: string; targetColumn: string },
  ids: readonly string[],
  alias: string,
) =>
  sql`(SELECT ${String(asOf.row.id)}::uuid AS ${sql.ref(field.ownerColumn)}, l.target AS ${sql.ref(field.targetColumn)}, l.ordinal
       FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS l(target, ordinal))`.as(alias);

/** Whether the caller may see rows of a type at all (relations to other kinds are empty otherwise). */
export function canRead(context: LoadContext, type: ObjectTypeDef): boolean {
  return type.readPermission === null || allows(context.principal.permissions, type.readPermission);
}

/**
 * The rows of `type` (read as `alias`) the caller may read, when the kind's read does not reach them
 * all (owned secrets and integrations are their team's, docs/contract.md §6): a condition of the
 * statement itself, so a relation to one the caller may not read answers null or leaves it out.
 */
export function readableOf(context: LoadContext, type: ObjectTypeDef, alias: string): RawBuilder<boolean> | undefined {
  const resource = type.readPermission?.slice(0, type.readPermission.indexOf(':'));
  if (resource === undefined || !PRIVATE_WHEN_OWNED.has(resource)) return undefined;
  return readableRows(context.principal, resource as PermissionResource, alias);
}

/**
 * A to-one relation read in its parent's statement: `LEFT JOIN LATERAL (SELECT … FROM <target> …
 * LIMIT 1) AS <alias>`, its columns selected as `<alias>__<column>`; to-one relations of the target
 * nest the same way.
 */
export interface Joined {
  readonly name: string;
  readonly alias: string;
  readonly plan: LoadPlan;
  readonly nested: readonly Joined[];
  /** The parent row's key that is truthy when the join matched a row: the target's id, else `<alias>_found`. */
  readonly matched: string;
  /** The parent row's keys that make the target's row, and their names there (nested joins keep theirs). */
  readonly keys: readonly (readonly [from: string, to: string])[];
}

/**
 * A list relation read in its parent's statement: `LEFT JOIN LATERAL (SELECT json_agg(…) …) AS <alias>`
 * gives each parent row the related rows as a JSON array in `<alias>__items` (their to-one relations
 * joined in, as above). JSON keeps every value the projections store (text, uuid, numbers, booleans,
 * jsonb, text[]); timestamps are UTC text there too (`output`).
 */
export interface Aggregated {
  readonly name: string;
  readonly column: string;
  readonly plan: LoadPlan;
  readonly joins: readonly Joined[];
}

/** The relations a statement read along with its rows. */
export interface JoinedRelations {
  readonly joins: readonly Joined[];
  readonly aggregates: readonly Aggregated[];
}

const NOTHING_JOINED: JoinedRelations = { joins: [], aggregates: [] };

/** A statement over a plan's table with its relations joined in, for the caller to add WHERE/ORDER/LIMIT. */
export interface PlanSelect extends JoinedRelations {
  readonly query: AnySelect;
}

/** A column a join adds: its value (see `output`) and the name the row carries it under. */
interface Selected {
  readonly value: RawBuilder<unknown>;
  readonly as: string;
}

const timestampColumnsOf = new WeakMap<ObjectTypeDef, ReadonlySet<string>>();

/** The stored columns behind a type's DateTime fields. */
function timestampColumns(type: ObjectTypeDef): ReadonlySet<string> {
  let columns = timestampColumnsOf.get(type);
  if (!columns) {
    const fields = Object.values(type.fields);
    columns = new Set(fields.flatMap((field) => (field.kind === 'column' && /^DateTime!?$/.test(field.type) ? [field.column] : [])));
    timestampColumnsOf.set(type, columns);
  }
  return columns;
}

/** A stored column as the loader's statements return it: timestamps as UTC text (./timestamps.ts), the rest as stored. */
const output = (type: ObjectTypeDef, reference: string, column: string): RawBuilder<unknown> =>
  timestampColumns(type).has(column) ? utcText(reference) : sql.ref(reference);

const joinedColumn = (alias: string, column: string): string => `${alias}__${column}`;

/** json_build_object takes at most 100 arguments: larger selections are loaded by a statement of their own. */
const MAX_AGGREGATED_KEYS = 50;

/** Joins every readable to-one relation of `plan` (recursively) onto `query`, aliases j1, j2, … in order. */
function joinToOne(
  context: LoadContext,
  plan: LoadPlan,
  parent: string,
  start: AnySelect,
  counter: { next: number },
): { query: AnySelect; joins: Joined[]; selected: Selected[] } {
  let query = start;
  const joins: Joined[] = [];
  const selected: Selected[] = [];
  for (const [name, { field, plan: child }] of plan.relations) {
    // Unreadable targets are not joined: the relation answers null without reading them.
    if (field.kind !== 'toOne' || !canRead(context, child.type)) continue;
    const alias = `j${String(counter.next++)}`;
    const target = child.type;
    const columns = [...child.columns];
    // LATERAL (… LIMIT 1) rather than a plain join: one index lookup per parent row. With a plain
    // join PostgreSQL hashes the whole target table for a 100-row page (1,000 templates: 0.26 vs
    // 0.18 ms per page, docs/benchmarks.md "GraphQL throughput"). The LIMIT keeps it from turning the subquery
    // back into a plain join. Nested joins read their foreign keys from it.
    const carried = new Set(['id', ...columns, ...child.foreignKeys]);
    let row = dynamicSelect(
      dynamicDb(context.db)
        .selectFrom(`${target.table} as ${alias}`)
        .select([...carried].map((c) => sql.ref(`${alias}.${c}`).as(c)))
        .where(sql.ref(`${alias}.id`), '=', sql.ref(`${parent}.${field.column}`)),
    );
    if (target.softDelete) row = row.where(liveById(`${alias}.deleted_at`));
    const readable = readableOf(context, target, alias);
    if (readable) row = row.where(readable);
    query = query.leftJoinLateral(row.limit(sql.lit(1)).as(alias), (join) => join.onTrue());
    const inner = joinToOne(context, child, alias, query, counter);
    query = inner.query;
    selected.push(...columns.map((c) => ({ value: output(target, `${alias}.${c}`, c), as: joinedColumn(alias, c) })));
    // Whether the join matched: the id when the plan reads it anyway, else a boolean (cheaper than a uuid to send and parse).
    const matched = child.columns.has('id') ? joinedColumn(alias, 'id') : `${alias}_found`;
    if (!child.columns.has('id')) selected.push({ value: sql`${sql.ref(`${alias}.id`)} is not null`, as: matched });
    selected.push(...inner.selected);
    const keys = [...columns.map((c) => [joinedColumn(alias, c), c] as const), ...inner.selected.map((c) => [c.as, c.as] as const)];
    joins.push({ name, alias, plan: child, nested: inner.joins, matched, keys });
  }
  return { query, joins, selected };
}

/**
 * Adds a LATERAL json_agg for every readable list relation of `plan` onto `query` (aliases m1, m2, …),
 * with the same rows and order as loading it by a statement of its own: live targets only, link
 * tables in `ordinal` order, reverse relations by creation.
 */
function aggregateToMany(
  context: LoadContext,
  plan: LoadPlan,
  parent: string,
  start: AnySelect,
  asOf?: AsOfSource,
): { query: AnySelect; aggregates: Aggregated[] } {
  let query = start;
  let next = 1;
  const aggregates: Aggregated[] = [];
  const db = dynamicDb(context.db);
  for (const [name, { field, plan: child }] of plan.relations) {
    if (field.kind === 'toOne' || !canRead(context, child.type)) continue;
    const alias = `m${String(next++)}`;
    const target = `${alias}_t`;
    const table = child.type.table;
    let sub: AnySelect;
    let order: ReturnType<typeof sql>[];
    if (field.kind === 'toMany') {
      const link = `${alias}_l`;
      // Each link row's target looked up by primary key (LATERAL … LIMIT 1, as joinToOne does): as a
      // plain join, a plan made while the tables were small (kept where autovacuum does not analyse)
      // walked every target row for each parent instead.
      let byId = dynamicSelect(
        db
          .selectFrom(`${table} as ${target}`)
          .select([...new Set(['id', ...child.columns, ...child.foreignKeys])].map((c) => sql.ref(`${target}.${c}`).as(c)))
          .where(sql.ref(`${target}.id`), '=', sql.ref(`${link}.${field.targetColumn}`)),
      );
      if (child.type.softDelete) byId = byId.where(liveById(`${target}.deleted_at`));
      const readable = readableOf(context, child.type, target);
      if (readable) byId = byId.where(readable);
      const heldThen = asOf?.table === parent ? asOf.links.get(field.table) : undefined;
      const links = dynamicSelect(
        asOf && heldThen ? db.selectFrom(asOfLinks(asOf, field, heldThen, link)) : db.selectFrom(`${field.table} as ${link}`),
      );
      sub = links
        .innerJoinLateral(byId.limit(sql.lit(1)).as(target), (join) => join.onTrue())
        .where(sql.ref(`${link}.${field.ownerColumn}`), '=', sql.ref(`${parent}.id`));
      order = [sql`${sql.ref(`${link}.ordinal`)}`];
    } else {
      sub = db.selectFrom(`${table} as ${target}`).where(sql.ref(`${target}.${field.column}`), '=', sql.ref(`${parent}.id`));
      // By the foreign key's full index (migration 029): a partial index of live rows would otherwise
      // serve a plan made while the table was small, walking every live row for each parent.
      if (child.type.softDelete) sub = sub.where(liveById(`${target}.deleted_at`));
      const readable = readableOf(context, child.type, target);
      if (readable) sub = sub.where(readable);
      order = [sql`${sql.ref(`${target}.created_at`)}`, sql`${sql.ref(`${target}.id`)}`];
    }
    // The subquery is a scope of its own: its joins are numbered from j1 again.
    const inner = joinToOne(context, child, target, sub, { next: 1 });
    const keys = [...[...withId(child)].map((c) => ({ value: output(child.type, `${target}.${c}`, c), as: c })), ...inner.selected];
    if (keys.length > MAX_AGGREGATED_KEYS) continue;
    const object = sql`json_build_object(${sql.join(keys.map((k) => sql`${sql.lit(k.as)}, ${k.value}`))})`;
    const items = inner.query.select(sql`coalesce(json_agg(${object} order by ${sql.join(order)}), '[]'::json)`.as('items'));
    query = query
      .leftJoinLateral(items.as(alias), (join) => join.onTrue())
      .select(sql.ref(`${alias}.items`).as(joinedColumn(alias, 'items')));
    aggregates.push({ name, column: joinedColumn(alias, 'items'), plan: child, joins: inner.joins });
  }
  return { query, aggregates };
}

/** Joins the plan's relations onto a statement over its rows (`parent` names them) and selects what they add. */
function joinRelations(context: LoadContext, plan: LoadPlan, parent: string, start: AnySelect, asOf?: AsOfSource): PlanSelect {
  const joined = joinToOne(context, plan, parent, start, { next: 1 });
  const query = joined.selected.length > 0 ? joined.query.select(joined.selected.map((c) => c.value.as(c.as))) : joined.query;
  const aggregated = aggregateToMany(context, plan, parent, query, asOf);
  return { query: aggregated.query, joins: joined.joins, aggregates: aggregated.aggregates };
}

/** The columns a statement over `from` returns for `plan`: `output` forms under their stored names. */
function outputColumns(plan: LoadPlan, from: string, columns: ReadonlySet<string>) {
  // A selection of only __typename still needs a column to count rows by.
  const names = columns.size > 0 ? [...columns] : ['id'];
  return names.map((c) => output(plan.type, `${from}.${c}`, c).as(c));
}

/**
 * `SELECT <columns> FROM <table>`, tombstones excluded unless the caller's filters already exclude
 * them. `stored` returns the columns as stored, for a page that an outer statement reads from.
 */
function selectColumns(
  context: LoadContext,
  plan: LoadPlan,
  columns: ReadonlySet<string>,
  excludeDeleted: boolean,
  stored = false,
  asOf?: AsOfSource,
): AnySelect {
  const table = plan.type.table;
  const selection = stored ? [...columns].map((c) => sql.ref(`${table}.${c}`).as(c)) : outputColumns(plan, table, columns);
  const db = dynamicDb(context.db);
  const from = dynamicSelect(asOf ? db.selectFrom(asOfTable(asOf)) : db.selectFrom(table));
  let query = dynamicSelect(from.select(selection));
  // An earlier state is shown to whoever may read the entity now, which its caller checked.
  const readable = asOf ? undefined : readableOf(context, plan.type, table);
  if (readable) query = query.where(readable);
  return plan.type.softDelete && excludeDeleted ? query.where(sql.ref(`${table}.deleted_at`), 'is', null) : query;
}

/** Whether any relation of the plan would be joined (one whose target the caller may read). */
const joinsAny = (context: LoadContext, plan: LoadPlan): boolean =>
  [...plan.relations.values()].some(({ plan: child }) => canRead(context, child.type));

/**
 * `SELECT <plan's columns> FROM <table>` with its relations joined in, tombstones excluded unless
 * the caller's filters already exclude them, for the caller to add WHERE (not LIMIT: see selectPage).
 */
export function selectPlan(
  context: LoadContext,
  plan: LoadPlan,
  options: { columns?: ReadonlySet<string>; excludeDeleted?: boolean; asOf?: AsOfSource } = {},
): PlanSelect {
  const query = selectColumns(context, plan, options.columns ?? plan.columns, options.excludeDeleted ?? true, false, options.asOf);
  return joinRelations(context, plan, plan.type.table, query, options.asOf);
}

/** How a page is ordered: a column of the plan's table and the id column breaking ties, one direction. */
export interface PageOrder {
  readonly column: string;
  readonly idColumn: string;
  readonly direction: 'asc' | 'desc';
}

/**
 * A page (`paged` adds WHERE, ORDER BY, OFFSET, LIMIT to the bare select) with the plan's relations
 * joined onto the page's rows only: `SELECT page.<columns>, j1.… FROM (<page>) AS page LEFT JOIN …
 * ORDER BY <the page's order>`. Joined inside the page, a sort on an unindexed column would join
 * every matching row before it sorts and limits.
 */
export function selectPage(context: LoadContext, plan: LoadPlan, order: PageOrder, paged: (bare: AnySelect) => AnySelect): PlanSelect {
  if (!joinsAny(context, plan)) return { ...NOTHING_JOINED, query: paged(selectColumns(context, plan, plan.columns, false)) };
  // The page carries what the outer statement joins on and orders by; the outer one returns only
  // the plan's columns (named, not `page.*`: a `*` select is never prepared, src/storage/prepared.ts).
  const carried = new Set([...plan.columns, ...plan.foreignKeys, order.column, order.idColumn]);
  const page = paged(selectColumns(context, plan, carried, false, true));
  const outer = dynamicSelect(
    dynamicDb(context.db)
      .selectFrom(page.as('page'))
      .select(outputColumns(plan, 'page', plan.columns)),
  );
  const joined = joinRelations(context, plan, 'page', outer);
  let query = joined.query.orderBy(sql.ref(`page.${order.column}`), order.direction);
  if (order.column !== order.idColumn) query = query.orderBy(sql.ref(`page.${order.idColumn}`), order.direction);
  return { ...joined, query };
}

/**
 * How one level's rows become objects, decided once for all of them: per requested field, where its
 * value comes from. Restricted fields answer null unless the caller holds the type's `restrictedTo`
 * permission or the row is the caller.
 */
function presenter(plan: LoadPlan, context: LoadContext): (row: Row) => GraphObject {
  const { type } = plan;
  const { userId, permissions } = context.principal;
  const mayHide = type.restrictedTo !== undefined && !allows(permissions, type.restrictedTo);
  const timestamps = timestampColumns(type);
  const readers: [name: string, read: (row: Row) => unknown][] = [];
  for (const name of plan.fields) {
    const field = type.fields[name];
    if (field?.kind === 'computed') readers.push([name, (row) => field.compute(row, context)]);
    if (field?.kind !== 'column') continue;
    const { column } = field;
    const stored = timestamps.has(column) ? (row: Row) => isoFromUtcText(row[column]) : (row: Row) => row[column];
    readers.push([name, field.restricted && mayHide ? (row) => (row.id === userId ? stored(row) : null) : stored]);
  }
  return (row) => {
    const object: GraphObject = {};
    for (const [name, read] of readers) object[name] = read(row);
    return object;
  };
}

/** The access fields of a level's objects, for all its rows in one statement. */
async function loadAccess(context: LoadContext, plan: LoadPlan, rows: readonly Row[], objects: GraphObject[]): Promise<void> {
  const kind = plan.type.kind;
  const ids = distinct(rows.map((row) => row.id));
  const parts = new Set(
    plan.access.map((name) => {
      const field = plan.type.fields[name];
      return field?.kind === 'access' ? field.part : undefined;
    }),
  );
  const needsAccess = parts.has('myPermissions') || parts.has('availableActions');
  const [access, favorites] = await Promise.all([
    kind === undefined || !needsAccess ? new Map<string, EntityAccess>() : accessOf(context, context.principal, kind, ids),
    parts.has('isFavorite') ? favoritesAmong(context.db, context.principal.userId, ids) : new Set<string>(),
  ]);
  rows.forEach((row, index) => {
    const object = objects[index];
    const found = access.get(row.id as string);
    if (!object) return;
    for (const name of plan.access) {
      const field = plan.type.fields[name];
      if (field?.kind !== 'access') continue;
      object[name] = field.part === 'isFavorite' ? favorites.has(String(row.id)) : (found?.[field.part] ?? []);
    }
  });
}

/** The joined target's row inside a parent row (null when the left join matched nothing); nested joins' columns ride along. */
function joinedRow(row: Row, join: Joined): Row | null {
  if (!row[join.matched]) return null;
  const child: Row = {};
  for (const [from, to] of join.keys) child[to] = row[from];
  return child;
}

/**
 * Presents rows of one level and loads their relations: joined to-one relations from the rows
 * themselves, every other relation in one statement for all the rows (recursively).
 */
export async function loadObjects(
  context: LoadContext,
  plan: LoadPlan,
  rows: readonly Row[],
  { joins, aggregates }: JoinedRelations = NOTHING_JOINED,
): Promise<GraphObject[]> {
  const objects = rows.map(presenter(plan, context));
  // Scalars only (a single read's usual selection): nothing more to load.
  if (plan.access.length === 0 && plan.relations.size === 0) return objects;
  if (plan.access.length > 0) await loadAccess(context, plan, rows, objects);
  const joined = new Set([...joins.map((join) => join.name), ...aggregates.map((aggregate) => aggregate.name)]);
  await Promise.all([
    ...aggregates.map(async (aggregate) => {
      const lists = rows.map((row) => (row[aggregate.column] as Row[] | null) ?? []);
      // Their own list relations are loaded for all of them at once, by a statement per relation.
      const loaded = await loadObjects(context, aggregate.plan, lists.flat(), { joins: aggregate.joins, aggregates: [] });
      let next = 0;
      lists.forEach((list, index) => {
        const object = objects[index];
        if (object) object[aggregate.name] = list.map(() => loaded[next++]);
      });
    }),
    ...joins.map(async (join) => {
      const children = rows.map((row) => joinedRow(row, join));
      const found = children.filter((child): child is Row => child !== null);
      const loaded = await loadObjects(context, join.plan, found, { joins: join.nested, aggregates: [] });
      let next = 0;
      children.forEach((child, index) => {
        const object = objects[index];
        if (object) object[join.name] = child === null ? null : loaded[next++];
      });
    }),
    ...[...plan.relations]
      .filter(([name]) => !joined.has(name))
      .map(async ([name, { field, plan: child }]) => {
        const related = await loadRelation(context, field, child, rows);
        objects.forEach((object, index) => (object[name] = related[index]));
      }),
  ]);
  return objects;
}

const distinct = (values: readonly unknown[]): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string'))];

/** The related value of each parent row, in the parents' order. */
function loadRelation(context: LoadContext, field: RelationField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  switch (field.kind) {
    case 'toOne':
      return Promise.resolve(loadToOne(context, field, parents));
    case 'toMany':
      return loadToMany(context, field, plan, parents);
    case 'reverse':
      return loadReverse(context, field, plan, parents);
  }
}

/** A to-one relation that was not joined: its target kind is not readable by the caller. */
function loadToOne(context: LoadContext, field: ToOneField, parents: readonly Row[]): unknown[] {
  if (canRead(context, OBJECT_TYPES[field.target])) throw new Error(`to-one relation to ${field.target} should have been joined`);
  return parents.map(() => null);
}

/** Groups child objects under their parents' ids, keeping the statement's order within a parent. */
async function grouped(
  context: LoadContext,
  plan: LoadPlan,
  parents: readonly Row[],
  rows: readonly Row[],
  read: JoinedRelations,
): Promise<unknown[]> {
  const objects = await loadObjects(context, plan, rows, read);
  const byOwner = new Map<string, GraphObject[]>();
  rows.forEach((row, index) => {
    const owner = row.__owner as string;
    const object = objects[index];
    if (object) byOwner.set(owner, [...(byOwner.get(owner) ?? []), object]);
  });
  return parents.map((p) => byOwner.get(p.id as string) ?? []);
}

async function loadToMany(context: LoadContext, field: ToManyField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  const ids = distinct(parents.map((p) => p.id));
  if (ids.length === 0 || !canRead(context, OBJECT_TYPES[field.target])) return parents.map(() => []);
  const target = plan.type.table;
  const link = field.table;
  const { query, ...read } = selectPlan(context, plan, { columns: withId(plan) });
  const rows = (await query
    .innerJoin(link, `${link}.${field.targetColumn}`, `${target}.id`)
    .select(sql.ref(`${link}.${field.ownerColumn}`).as('__owner'))
    .where(sql.ref(`${link}.${field.ownerColumn}`), 'in', ids)
    .orderBy(sql.ref(`${link}.${field.ownerColumn}`))
    .orderBy(sql.ref(`${link}.ordinal`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows, read);
}

async function loadReverse(context: LoadContext, field: ReverseField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  const ids = distinct(parents.map((p) => p.id));
  if (ids.length === 0 || !canRead(context, OBJECT_TYPES[field.target])) return parents.map(() => []);
  const table = plan.type.table;
  const { query, ...read } = selectPlan(context, plan, { columns: withId(plan) });
  const rows = (await query
    .select(sql.ref(`${table}.${field.column}`).as('__owner'))
    .where(sql.ref(`${table}.${field.column}`), 'in', ids)
    .orderBy(sql.ref(`${table}.created_at`))
    .orderBy(sql.ref(`${table}.id`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows, read);
}
