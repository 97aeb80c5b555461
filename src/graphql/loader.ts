import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { allows } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/kysely.js';
import type { ObjectTypeDef, RelationField, ToManyField, ToOneField, ReverseField } from './model.js';
import { OBJECT_TYPES } from './model.js';
import { withId, type LoadPlan } from './plan.js';

/**
 * Runs load plans: presents stored rows as GraphQL objects. To-one relations are joined into their
 * parent's statement; list relations are loaded for all parent rows of a level in one statement
 * (seed rule 3). The number of statements depends on the query's shape, never on the number of rows.
 */

// Tables and columns are chosen at run time from the model, which Kysely's typed schema cannot express.
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
export type AnySelect = SelectQueryBuilder<Record<string, Record<string, unknown>>, string, Record<string, unknown>>;
type Row = Record<string, unknown>;
export type GraphObject = Record<string, unknown>;

export interface LoadContext {
  readonly db: Db;
  readonly principal: Principal;
  readonly baseUrl: string;
}

/** Whether the caller may see rows of a type at all (relations to other kinds are empty otherwise). */
export function canRead(context: LoadContext, type: ObjectTypeDef): boolean {
  return type.readPermission === null || allows(context.principal.permissions, type.readPermission);
}

/**
 * A to-one relation read in its parent's statement: `LEFT JOIN <target> AS <alias>`, its columns
 * selected as `<alias>__<column>`; to-one relations of the target nest the same way.
 */
export interface Joined {
  readonly name: string;
  readonly alias: string;
  readonly plan: LoadPlan;
  readonly nested: readonly Joined[];
}

/** A statement over a plan's table with its to-one relations joined in, for the caller to add WHERE/ORDER/LIMIT. */
export interface PlanSelect {
  readonly query: AnySelect;
  readonly joins: readonly Joined[];
}

const joinedColumn = (alias: string, column: string): string => `${alias}__${column}`;

/** Joins every readable to-one relation of `plan` (recursively) onto `query`, aliases j1, j2, … in order. */
function joinToOne(context: LoadContext, plan: LoadPlan, parent: string, start: AnySelect, counter: { next: number }): PlanSelect {
  let query = start;
  const joins: Joined[] = [];
  for (const [name, { field, plan: child }] of plan.relations) {
    // Unreadable targets are not joined: the relation answers null without reading them.
    if (field.kind !== 'toOne' || !canRead(context, child.type)) continue;
    const alias = `j${String(counter.next++)}`;
    const target = child.type;
    query = query.leftJoin(`${target.table} as ${alias}`, (join) => {
      const on = join.onRef(`${alias}.id`, '=', `${parent}.${field.column}`);
      return target.softDelete ? on.on(sql.ref(`${alias}.deleted_at`), 'is', null) : on;
    });
    query = query.select([...withId(child)].map((c) => sql.ref(`${alias}.${c}`).as(joinedColumn(alias, c))));
    const inner = joinToOne(context, child, alias, query, counter);
    query = inner.query;
    joins.push({ name, alias, plan: child, nested: inner.joins });
  }
  return { query, joins };
}

/**
 * `SELECT <plan's columns> FROM <table>` with its to-one relations joined in, tombstones excluded
 * unless the caller's filters already exclude them.
 */
export function selectPlan(context: LoadContext, plan: LoadPlan, options: { columns?: ReadonlySet<string>; excludeDeleted?: boolean } = {}): PlanSelect {
  const table = plan.type.table;
  const columns = options.columns ?? plan.columns;
  // A selection of only __typename still needs a column to count rows by.
  const names = columns.size > 0 ? [...columns] : ['id'];
  let query = (context.db as unknown as AnyDb).selectFrom(table).select(names.map((c) => sql.ref(`${table}.${c}`).as(c))) as unknown as AnySelect;
  if (plan.type.softDelete && (options.excludeDeleted ?? true)) query = query.where(sql.ref(`${table}.deleted_at`), 'is', null);
  return joinToOne(context, plan, table, query, { next: 1 });
}

function present(plan: LoadPlan, row: Row, context: LoadContext): GraphObject {
  const object: GraphObject = {};
  const { type } = plan;
  const hidden = type.restrictedTo !== undefined && !allows(context.principal.permissions, type.restrictedTo) && row.id !== context.principal.userId;
  for (const name of plan.fields) {
    const field = type.fields[name];
    if (field?.kind === 'column') object[name] = field.restricted && hidden ? null : row[field.column];
    else if (field?.kind === 'computed') object[name] = field.compute(row, context);
  }
  return object;
}

/** The joined target's row inside a parent row (null when the left join matched nothing); nested joins' columns ride along. */
function joinedRow(row: Row, join: Joined): Row | null {
  if (row[joinedColumn(join.alias, 'id')] == null) return null;
  const prefix = `${join.alias}__`;
  const child: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(prefix)) child[key.slice(prefix.length)] = value;
    else if (/^j\d+__/.test(key)) child[key] = value;
  }
  return child;
}

/**
 * Presents rows of one level and loads their relations: joined to-one relations from the rows
 * themselves, every other relation in one statement for all the rows (recursively).
 */
export async function loadObjects(context: LoadContext, plan: LoadPlan, rows: readonly Row[], joins: readonly Joined[] = []): Promise<GraphObject[]> {
  const objects = rows.map((row) => present(plan, row, context));
  const joined = new Set(joins.map((join) => join.name));
  await Promise.all([
    ...joins.map(async (join) => {
      const children = rows.map((row) => joinedRow(row, join));
      const found = children.filter((child): child is Row => child !== null);
      const loaded = await loadObjects(context, join.plan, found, join.nested);
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
async function grouped(context: LoadContext, plan: LoadPlan, parents: readonly Row[], rows: readonly Row[], joins: readonly Joined[]): Promise<unknown[]> {
  const objects = await loadObjects(context, plan, rows, joins);
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
  const { query, joins } = selectPlan(context, plan, { columns: withId(plan) });
  const rows = (await query
    .innerJoin(link, `${link}.${field.targetColumn}`, `${target}.id`)
    .select(sql.ref(`${link}.${field.ownerColumn}`).as('__owner'))
    .where(sql.ref(`${link}.${field.ownerColumn}`), 'in', ids)
    .orderBy(sql.ref(`${link}.${field.ownerColumn}`))
    .orderBy(sql.ref(`${link}.ordinal`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows, joins);
}

async function loadReverse(context: LoadContext, field: ReverseField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  const ids = distinct(parents.map((p) => p.id));
  if (ids.length === 0 || !canRead(context, OBJECT_TYPES[field.target])) return parents.map(() => []);
  const table = plan.type.table;
  const { query, joins } = selectPlan(context, plan, { columns: withId(plan) });
  const rows = (await query
    .select(sql.ref(`${table}.${field.column}`).as('__owner'))
    .where(sql.ref(`${table}.${field.column}`), 'in', ids)
    .orderBy(sql.ref(`${table}.created_at`))
    .orderBy(sql.ref(`${table}.id`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows, joins);
}
