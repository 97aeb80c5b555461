import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { allows } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/kysely.js';
import type { ObjectTypeDef, RelationField, ToManyField, ToOneField, ReverseField } from './model.js';
import { OBJECT_TYPES } from './model.js';
import { withId, type LoadPlan } from './plan.js';

/**
 * Runs load plans: presents stored rows as GraphQL objects and loads every requested relation for
 * all parent rows of a level in one statement (seed rule 3), so the number of statements depends
 * on the query's shape, never on the number of rows.
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
 * `SELECT <plan's columns> FROM <table>`, tombstones excluded unless the caller's filters already
 * exclude them, for the caller to add WHERE/ORDER/LIMIT.
 */
export function selectPlan(db: Db, plan: LoadPlan, columns: ReadonlySet<string> = plan.columns, options: { excludeDeleted?: boolean } = {}): AnySelect {
  const table = plan.type.table;
  // A selection of only __typename still needs a column to count rows by.
  const names = columns.size > 0 ? [...columns] : ['id'];
  let query = (db as unknown as AnyDb).selectFrom(table).select(names.map((c) => sql.ref(`${table}.${c}`).as(c))) as unknown as AnySelect;
  if (plan.type.softDelete && (options.excludeDeleted ?? true)) query = query.where(sql.ref(`${table}.deleted_at`), 'is', null);
  return query;
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

/** Presents rows of one level and loads their relations (recursively, one statement per relation). */
export async function loadObjects(context: LoadContext, plan: LoadPlan, rows: readonly Row[]): Promise<GraphObject[]> {
  const objects = rows.map((row) => present(plan, row, context));
  await Promise.all(
    [...plan.relations].map(async ([name, { field, plan: child }]) => {
      const related = await loadRelation(context, field, child, rows);
      objects.forEach((object, index) => (object[name] = related[index]));
    }),
  );
  return objects;
}

const distinct = (values: readonly unknown[]): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string'))];

/** The related value of each parent row, in the parents' order. */
function loadRelation(context: LoadContext, field: RelationField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  switch (field.kind) {
    case 'toOne':
      return loadToOne(context, field, plan, parents);
    case 'toMany':
      return loadToMany(context, field, plan, parents);
    case 'reverse':
      return loadReverse(context, field, plan, parents);
  }
}

async function loadToOne(context: LoadContext, field: ToOneField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  const ids = distinct(parents.map((p) => p[field.column]));
  if (ids.length === 0 || !canRead(context, OBJECT_TYPES[field.target])) return parents.map(() => null);
  const table = plan.type.table;
  const rows = (await selectPlan(context.db, plan, withId(plan)).where(sql.ref(`${table}.id`), 'in', ids).execute()) as Row[];
  const objects = await loadObjects(context, plan, rows);
  const byId = new Map(rows.map((row, index) => [row.id as string, objects[index]]));
  return parents.map((p) => byId.get(p[field.column] as string) ?? null);
}

/** Groups child objects under their parents' ids, keeping the statement's order within a parent. */
async function grouped(context: LoadContext, plan: LoadPlan, parents: readonly Row[], rows: readonly Row[]): Promise<unknown[]> {
  const objects = await loadObjects(context, plan, rows);
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
  const rows = (await selectPlan(context.db, plan, withId(plan))
    .innerJoin(link, `${link}.${field.targetColumn}`, `${target}.id`)
    .select(sql.ref(`${link}.${field.ownerColumn}`).as('__owner'))
    .where(sql.ref(`${link}.${field.ownerColumn}`), 'in', ids)
    .orderBy(sql.ref(`${link}.${field.ownerColumn}`))
    .orderBy(sql.ref(`${link}.ordinal`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows);
}

async function loadReverse(context: LoadContext, field: ReverseField, plan: LoadPlan, parents: readonly Row[]): Promise<unknown[]> {
  const ids = distinct(parents.map((p) => p.id));
  if (ids.length === 0 || !canRead(context, OBJECT_TYPES[field.target])) return parents.map(() => []);
  const table = plan.type.table;
  const rows = (await selectPlan(context.db, plan, withId(plan))
    .select(sql.ref(`${table}.${field.column}`).as('__owner'))
    .where(sql.ref(`${table}.${field.column}`), 'in', ids)
    .orderBy(sql.ref(`${table}.created_at`))
    .orderBy(sql.ref(`${table}.id`))
    .execute()) as Row[];
  return grouped(context, plan, parents, rows);
}
