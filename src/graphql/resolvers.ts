import type { GraphQLResolveInfo } from 'graphql';
import { sql, type CompiledQuery } from 'kysely';
import { dynamicDb, dynamicSelect } from '../storage/dynamic.js';
import { allows } from '../model/permissions.js';
import { serviceAccountToken } from '../auth/sign-in.js';
import { applyFilters, applyPage, pageOrder, parseListQuery, type ListQuery } from '../read/list-query.js';
import { ensureWholePositions } from '../read/list-specs/audit-log.js';
import { auditLogScope } from '../read/audit-log.js';
import { liveById } from '../read/live-by-id.js';
import { listLoginOptions } from '../read/auth-providers.js';
import { AppError } from '../errors.js';
import { commandContext } from '../edge/context.js';
import { credentials } from '../auth/credentials.js';
import { parseInput } from '../validation.js';
import type { Services } from '../services.js';
import { Lru } from '../lru.js';
import {
  canRead,
  loadObjects,
  readableOf,
  selectPage,
  selectPlan,
  type AnySelect,
  type JoinedRelations,
  type LoadContext,
} from './loader.js';
import { OBJECT_TYPES } from './model.js';
import { awaitingDecisionOf } from '../read/entity-access.js';
import { planOf, withId, type LoadPlan } from './plan.js';
import { rowsById } from './by-id-batch.js';
import { ROOT_ENTITIES, type RootEntity } from './roots.js';
import type { GraphContext } from './context.js';
import { guarded, noteGuard } from './speculation.js';
import { expectedRevision, kindMutations, MUTATION_ENTITIES } from './mutations.js';
import { writesOf } from '../edge/writes/registry.js';
import { runLogResolvers } from './run-logs.js';
import { accessResolvers } from './access.js';
import { searchResolvers } from './search.js';
import { historyResolvers } from './history.js';
import { favoriteResolvers } from './favorites.js';
import { upstreamResolvers } from './upstream.js';
import { countResolvers } from './counts.js';
import { treeResolvers } from './trees.js';
import type { WriteCall } from '../edge/writes/write.js';
import { z } from 'zod';
import { declarationOf } from '../model/catalog.js';
import { atInput, linksAsOf, type RowAsOf } from '../read/as-of.js';
import { readableRowAsOf } from '../edge/history.js';

export type { GraphContext } from './context.js';

interface ListArgs {
  readonly filter?: unknown;
  readonly sort?: unknown;
  readonly range?: unknown;
}

type Resolver = (root: unknown, args: Record<string, unknown>, context: GraphContext, info: GraphQLResolveInfo) => unknown;

/**
 * Runs a root field's statement; while the caller is recalled and unconfirmed, the statement also
 * checks their session (./speculation.ts), saving authentication's own round trip.
 */
async function rootRows(context: GraphContext, compiled: CompiledQuery<Record<string, unknown>>): Promise<Record<string, unknown>[]> {
  const { rows } = await context.services.db.executeQuery(guarded(compiled, context.speculation));
  noteGuard(rows, context.speculation);
  return rows;
}

function signedIn(context: GraphContext): LoadContext {
  // plugin.ts refuses non-public operations without a caller before execution; this is the backstop.
  if (!context.principal) throw new AppError('UNAUTHENTICATED', 'Not authenticated.');
  return {
    db: context.services.db,
    principal: context.principal,
    baseUrl: context.services.config.BASE_URL,
    approvalFlow: context.services.config.APPROVAL_FLOW,
  };
}

/** Whether the caller may use a root field at all (the audit log is scoped instead, users may read themselves). */
function mayList(load: LoadContext, root: RootEntity): boolean {
  const type = OBJECT_TYPES[root.type];
  if (root.permission) return allows(load.principal.permissions, root.permission);
  return canRead(load, type);
}

function requireList(load: LoadContext, root: RootEntity): void {
  if (mayList(load, root)) return;
  const wanted = root.permission ?? OBJECT_TYPES[root.type].readPermission;
  throw new AppError('FORBIDDEN', `missing permission ${wanted ?? ''}`, { details: { missingPermission: wanted } });
}

function parseList(root: RootEntity, services: Services, args: ListArgs): ListQuery {
  const query = parseListQuery(root.listSpec, args, { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 });
  if (root.type === 'AuditEntry') ensureWholePositions(query);
  return query;
}

/** Keeps non-super callers to the audit entries of the kinds they may read. */
function scoped(load: LoadContext, root: RootEntity, query: AnySelect): AnySelect {
  if (root.type !== 'AuditEntry') {
    const readable = readableOf(load, OBJECT_TYPES[root.type], root.listSpec.table);
    const rows = readable ? query.where(readable) : query;
    return root.scope === 'awaitingDecision' ? rows.where(awaitingDecisionOf(load.principal, root.listSpec.table)) : rows;
  }
  const scope = auditLogScope(load.principal);
  return scope ? query.where(scope) : query;
}

// The root of each type's single query (the approvals list is a second root over resources).
const ROOTS_BY_TYPE = new Map(
  ROOT_ENTITIES.filter((root) => root.single !== undefined || root.type === 'AuditEntry').map((root) => [root.type, root]),
);

/** A single read's statement, compiled with its id as a parameter filled in per request. */
interface CompiledById {
  readonly compiled: CompiledQuery<Record<string, unknown>>;
  /** Where in `compiled.parameters` the id goes. */
  readonly idSlot: number;
  readonly plan: LoadPlan;
  readonly read: JoinedRelations;
}

const permissionIds = new WeakMap<object, number>();
let nextPermissionsId = 0;

/**
 * A number for the caller's permission list in statement keys: lists are shared per roles and
 * grants (effectivePermissions), so they are told apart by identity rather than spelled out in
 * every key (a key is hashed and compared on every request).
 */
function permissionsIdOf(load: LoadContext): number {
  let id = permissionIds.get(load.principal.permissions);
  if (id === undefined) permissionIds.set(load.principal.permissions, (id = nextPermissionsId++));
  return id;
}

/** The id a statement is compiled with, then replaced: no id is ever this text. */
const ID_PLACEHOLDER = '\u0000id';
/** How many compiled single-read statements a process keeps (a few kB each). */
const COMPILED_BY_ID = 1000;
const compiledById = new Lru<string, CompiledById>(COMPILED_BY_ID);

/**
 * What decides a single read's SQL (as `listKey` for lists): the document's field, the caller's
 * permissions and id, and the variables (which @skip/@include read) — the requested id aside, so
 * one document asked for another id reuses the statement.
 */
function byIdKey(root: RootEntity, load: LoadContext, id: string, info: GraphQLResolveInfo): string {
  let operation = operationIds.get(info.operation);
  if (operation === undefined) operationIds.set(info.operation, (operation = nextOperationId++));
  const variables = Object.entries(info.variableValues).map(([name, value]) => [name, value === id ? ID_PLACEHOLDER : value]);
  const path = typeof info.path.key === 'string' ? info.path.key : '';
  return JSON.stringify([operation, root.type, path, permissionsIdOf(load), load.principal.userId, variables]);
}

function compileById(root: RootEntity, load: LoadContext, info: GraphQLResolveInfo): CompiledById | undefined {
  const plan = planOf(root.type, info);
  const table = OBJECT_TYPES[root.type].table;
  // Tombstones excluded as a lookup by primary key must (liveById): the plain form let the generic
  // plan PostgreSQL keeps for this prepared statement walk a partial index instead.
  // Always with the id: a read batched with others gets its row by it (./by-id-batch.ts).
  const { query, ...read } = selectPlan(load, plan, { excludeDeleted: false, columns: withId(plan) });
  const live = plan.type.softDelete ? query.where(liveById(`${table}.deleted_at`)) : query;
  const compiled = live.where(sql.ref(`${table}.id`), '=', ID_PLACEHOLDER).compile();
  const slots = compiled.parameters.flatMap((value, index) => (value === ID_PLACEHOLDER ? [index] : []));
  const [idSlot] = slots;
  return idSlot !== undefined && slots.length === 1 ? { compiled, idSlot, plan, read } : undefined;
}

/**
 * One row of a kind by id, loaded for the field's selection; null when absent or not readable. The
 * statement is built and compiled once per document shape and caller (about a tenth of a single
 * read's CPU otherwise), then run with each request's id, together with the same turn's other reads
 * of it (./by-id-batch.ts).
 */
async function loadById(context: GraphContext, root: RootEntity, id: string, info: GraphQLResolveInfo): Promise<unknown> {
  const load = signedIn(context);
  // Not readable answers like absent: no hint that the row exists. Users are the exception: names
  // are visible through every `creator` and `actor` anyway, so anyone may look one up by id, and
  // the loader nulls the restricted fields unless the caller holds user:read or is that user.
  if (root.type !== 'User' && !mayList(load, root)) return null;
  const key = byIdKey(root, load, id, info);
  let statement = compiledById.get(key);
  if (!statement) {
    statement = compileById(root, load, info);
    if (!statement) throw new Error(`the single read of ${root.type} names its id more than once`);
    compiledById.set(key, statement);
  }
  const rows = await rowsById(context.services, statement, id, context.speculation);
  const [object] = await loadObjects(load, statement.plan, rows, statement.read);
  return object ?? null;
}

/** A user by id for the field's selection (the subscription's `Change.actor`). */
export function loadUserById(context: GraphContext, id: string, info: GraphQLResolveInfo): Promise<unknown> {
  const root = ROOTS_BY_TYPE.get('User');
  if (!root) throw new Error('no root query for User');
  return loadById(context, root, id, info);
}

/**
 * One row of a declared kind as it was (docs/contract.md §2, "History you can query"): the entity's
 * events folded up to `at` (a position or time) or `revision`, loaded for the field's selection from
 * the folded row; null when the caller may not read the entity now, it is deleted, or it did not
 * exist then.
 */
async function loadAsOf(context: GraphContext, root: RootEntity, id: string, args: AsOfArgs, info: GraphQLResolveInfo): Promise<unknown> {
  const load = signedIn(context);
  const entity = declarationOf(OBJECT_TYPES[root.type].kind ?? '');
  if (!entity || !mayList(load, root)) return null;
  const { at, revision } = parseInput(asOfArgs, { at: args.at ?? undefined, revision: args.revision ?? undefined }, 'arguments');
  const point = revision !== undefined ? { revision } : at;
  if (point === undefined) return loadById(context, root, id, info);
  let folded: RowAsOf;
  try {
    folded = await readableRowAsOf(context.services, load.principal, entity, id, point);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
  const plan = planOf(root.type, info);
  const asOf = { table: entity.table, row: folded.row, links: linksAsOf(entity, folded.row) };
  const { query, ...read } = selectPlan(load, plan, { excludeDeleted: false, asOf });
  const rows = await rootRows(context, query.compile());
  const [object] = await loadObjects(load, plan, rows, read);
  return object ?? null;
}

interface AsOfArgs {
  readonly at?: unknown;
  readonly revision?: unknown;
}

const asOfArgs = z
  .object({ at: atInput.optional(), revision: z.number().int().min(1, 'must be 1 or more').optional() })
  .refine((args) => args.at === undefined || args.revision === undefined, { message: 'give at or revision, not both', path: ['at'] });

function singleResolver(root: RootEntity): Resolver {
  // `id: UUID` as the seed writes it: no id names no row.
  return (_root, args, context, info) => {
    if (args.id == null) return null;
    if (args.at == null && args.revision == null) return loadById(context, root, args.id as string, info);
    return loadAsOf(context, root, args.id as string, args, info);
  };
}

/** Every mutation of ./mutations.ts, on the write operations REST runs too (src/edge/writes). */
function mutationResolvers(): Record<string, Resolver> {
  const call = (args: Record<string, unknown>, context: GraphContext): WriteCall => {
    signedIn(context);
    return { request: context.request, expectedRevision: expectedRevision(args.revision) };
  };
  const resolvers: Record<string, Resolver> = {};
  for (const entity of MUTATION_ENTITIES) {
    const root = ROOTS_BY_TYPE.get(entity.type);
    if (!root) throw new Error(`no root query for ${entity.type}`);
    for (const [name, resolve] of Object.entries(kindMutations(entity))) {
      resolvers[name] = (_root, args, context, info) =>
        resolve(writesOf(context.services)[entity.kind], call(args, context), args, (id) => loadById(context, root, id, info));
    }
  }
  resolvers.createPersonalAccessToken = async (_root, args, context) =>
    (await writesOf(context.services).personal_access_token.create(call(args, context), args.input)).created;
  resolvers.revokePersonalAccessToken = async (_root, args, context) => {
    await writesOf(context.services).personal_access_token.revoke(call(args, context), args.id as string);
    return true;
  };
  return resolvers;
}

/** A root list's statement, compiled, with what presenting its rows needs. */
interface CompiledList {
  readonly compiled: CompiledQuery<Record<string, unknown>>;
  readonly plan: LoadPlan;
  readonly read: JoinedRelations;
}

/** How many compiled root list statements an app keeps (a few kB each). */
const COMPILED_LISTS = 1000;
const operationIds = new WeakMap<object, number>();
let nextOperationId = 0;

function listKey(root: RootEntity, load: LoadContext, args: ListArgs, info: GraphQLResolveInfo): string {
  let operation = operationIds.get(info.operation);
  if (operation === undefined) operationIds.set(info.operation, (operation = nextOperationId++));
  const field = typeof info.path.key === 'string' ? info.path.key : root.plural;
  // The caller's id too: the rows a caller may read of owned secrets and integrations depend on who
  // they are (their teams and grants, src/read/entity-access.ts), and the statement names them.
  return JSON.stringify([operation, field, permissionsIdOf(load), load.principal.userId, args, info.variableValues]);
}

function compileList(root: RootEntity, load: LoadContext, services: Services, args: ListArgs, info: GraphQLResolveInfo): CompiledList {
  const query = parseList(root, services, args);
  const plan = planOf(root.type, info);
  // applyFilters adds the tombstone condition itself for soft-deleting specs.
  const selection = selectPage(load, plan, pageOrder(root.listSpec, query), (bare) =>
    applyPage(applyFilters(scoped(load, root, bare), root.listSpec, query), root.listSpec, query),
  );
  const { query: statement, ...read } = selection;
  return { compiled: statement.compile(), plan, read };
}

/**
 * Root list statements are kept by what decides their SQL (`listKey`): the document's field, its
 * arguments and variables (which @skip/@include read), the caller's permissions and id. Building and
 * compiling a page with its joins is about a tenth of a list request's CPU, and dashboards repeat
 * the same documents.
 */
function listResolver(root: RootEntity, compiledLists: Lru<string, CompiledList>): Resolver {
  return async (_root, args, context, info) => {
    const load = signedIn(context);
    requireList(load, root);
    const key = listKey(root, load, args, info);
    let list = compiledLists.get(key);
    if (!list) compiledLists.set(key, (list = compileList(root, load, context.services, args, info)));
    return loadObjects(load, list.plan, await rootRows(context, list.compiled), list.read);
  };
}

function countResolver(root: RootEntity): Resolver {
  const table = root.listSpec.table;
  return async (_root, args, context) => {
    const load = signedIn(context);
    requireList(load, root);
    const query = parseList(root, context.services, { filter: args.filter });
    const base: AnySelect = dynamicSelect(
      dynamicDb(load.db)
        .selectFrom(table)
        .select(sql<string>`count(*)`.as('total')),
    );
    const [row] = await rootRows(context, applyFilters(scoped(load, root, base), root.listSpec, query).compile());
    if (!row) throw new Error('count(*) answered no row');
    return Number(row.total);
  };
}

/** The Query and Mutation resolvers; object fields use the default resolver (loaded objects carry them). */
export function buildResolvers(): Record<string, Record<string, Resolver>> {
  const Query: Record<string, Resolver> = {};
  // Per app: the statements depend on its configuration (page size).
  const compiledLists = new Lru<string, CompiledList>(COMPILED_LISTS);
  for (const root of ROOT_ENTITIES) {
    if (root.single) Query[root.single] = singleResolver(root);
    Query[root.plural] = listResolver(root, compiledLists);
    if (root.count) Query[`${root.plural}Count`] = countResolver(root);
  }
  Query.me = async (_root, _args, context, info) => {
    const load = signedIn(context);
    const plan = planOf('User', info);
    const { query, ...read } = selectPlan(load, plan);
    const rows = await rootRows(context, query.where(sql.ref('users.id'), '=', load.principal.userId).compile());
    const [me] = await loadObjects(load, plan, rows, read);
    if (!me) throw new AppError('UNAUTHENTICATED', 'the signed-in user no longer exists');
    return me;
  };
  Query.enabledAuthProviders = (_root, _args, context) => listLoginOptions(context.services.db);
  Object.assign(
    Query,
    runLogResolvers.Query,
    accessResolvers.Query,
    searchResolvers.Query,
    historyResolvers.Query,
    favoriteResolvers.Query,
    treeResolvers.Query,
    upstreamResolvers.Query,
  );

  const Mutation: Record<string, Resolver> = {
    ...mutationResolvers(),
    // The same implementation as the deprecated REST endpoint: same rules, rate limit and audit entries.
    serviceAccountToken: async (_root, args, context) => {
      const input = parseInput(credentials, args, 'arguments');
      const { request, services } = context;
      const issued = await serviceAccountToken(services.signIn, { ...input, address: request.ip }, commandContext(request, services.now()));
      return { token: issued.token, expiresAt: issued.expiresAt };
    },
    ...runLogResolvers.Mutation,
    ...accessResolvers.Mutation,
    ...favoriteResolvers.Mutation,
  };
  return { Query, Mutation, ...countResolvers };
}
