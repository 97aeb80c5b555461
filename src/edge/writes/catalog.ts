import { z } from 'zod';
import type { CatalogCommand, CatalogState, EntityStatus } from '../../commands/catalog-entity.js';
import type { Aggregate } from '../../commands/decider.js';
import { loadAggregate, unwritten, type Loaded, type PreparedCommand } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import type { LifecycleCommand, LifecycleEntityState } from '../../commands/lifecycle-entity.js';
import { AppError, notFound } from '../../errors.js';
import type { DomainEvent } from '../../events/codec.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction } from '../../model/lifecycle.js';
import type { EntityDeclaration } from '../../model/entity.js';
import { allows, type PermissionResource } from '../../model/permissions.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { authorizeOnEntity, authorizeOwnerChange, namesOwner, ownerOnCreate } from '../entity-authority.js';
import { commandDeps, runCommand, type WriteCall, type WriteOperations, type Written } from './write.js';

/** What the writes of an entity need to know of it. */
export interface WriteTarget<C, S> {
  readonly resource: PermissionResource;
  /** The projection (and table) that shows the entity. */
  readonly projection: string;
  /** Whether the entity has an owner (`ownerId`): every catalog kind but teams, which own themselves. */
  readonly owned?: boolean;
  /** Other projections a write must reach before it answers (resources: the runs their actions queue and move). */
  readonly alsoShownBy?: readonly string[];
  readonly aggregate: Aggregate<C, DomainEvent, S>;
}

/**
 * How a kind reads its bodies: create into fields (some kinds add facts of the caller or of other
 * streams), update against the current fields. May be async (reference kinds).
 */
export interface BodyParsers<Created, F> {
  readonly parseCreate: (body: unknown, call: WriteCall) => Created | Promise<Created>;
  readonly parsePatch: (body: unknown, current: F, call: WriteCall) => Partial<F> | Promise<Partial<F>>;
}

/** An entity state with current fields (both kits' states are such). */
type WithFields<F> = { readonly status: 'absent' } | { readonly status: 'active' | 'deleted'; readonly fields: F };

const label = (resource: string): string => resource.replaceAll('_', ' ');

/** The raw `ownerId` a body names (undefined: it names none; the caller's only team is taken). */
const namedOwner = (body: unknown): string | null | undefined => {
  if (!namesOwner(body)) return undefined;
  const value = (body as { ownerId: unknown }).ownerId;
  // Anything else is the body schema's 400, after this check.
  return typeof value === 'string' || value === null ? value : undefined;
};

/**
 * A create's right and its owner when the body names none (../entity-authority.ts), decided before
 * the body is read: the caller's only team, or nobody.
 */
export async function createOwner(
  services: Services,
  call: WriteCall,
  target: Pick<WriteTarget<unknown, unknown>, 'resource' | 'owned'>,
  body: unknown,
  unownedCreates = false,
): Promise<{ ownerId?: string | null }> {
  if (!target.owned) {
    authorize(call.request, `${target.resource}:write`);
    return {};
  }
  const named = namedOwner(body);
  const owner = await ownerOnCreate(services, call, target.resource, named, unownedCreates);
  // A named owner stays as the body schema reads it (a canonical id); only the default is added.
  return named === undefined ? { ownerId: owner } : {};
}

/** The declaration's permission resource and projection (every catalog kind is a permission resource). */
export const targetOf = <A>(entity: EntityDeclaration, aggregate: A) => ({
  resource: entity.kind as PermissionResource,
  projection: entity.table,
  owned: 'ownerId' in entity.fields,
  aggregate,
});

/** The table the entity authority reads the owner and grants from. */
const entityTableOf = (target: { resource: PermissionResource; projection: string }) => ({
  resource: target.resource,
  table: target.projection,
});
/** The current fields of a live entity, or 404. */
async function currentFields<C, F, S extends WithFields<F>>(services: Services, target: WriteTarget<C, S>, id: string): Promise<F> {
  const { state } = await loadAggregate(commandDeps(services), target.aggregate, id);
  if (state.status !== 'active') throw notFound(`${label(target.resource)} not found`);
  return state.fields;
}

/** The action an edge named, refused with the allowed ones when unknown (a 400 naming `action`). */
export function parseAction<A extends string>(actions: readonly [A, ...A[]], action: unknown): A {
  const schema = z.object({ action: z.enum(actions, { message: `unknown action; allowed: ${actions.join(', ')}` }) });
  return parseInput(schema, { action }, 'path').action;
}

/** The actions of enable/disable kinds. */
export const CATALOG_ACTIONS = ['enable', 'disable'] as const;

/**
 * The catalog kit's writes (docs/contract.md §3): create, update (current fields for write-only
 * values; If-Match), enable/disable, delete — behind `{resource}:write`.
 */
export function catalogWrites<F extends Record<string, unknown>>(
  services: Services,
  target: WriteTarget<CatalogCommand<F>, CatalogState<F>>,
  parsers: BodyParsers<F & { status: EntityStatus }, F>,
): WriteOperations & Required<Pick<WriteOperations, 'remove'>> {
  const projections = [target.projection];
  const table = entityTableOf(target);
  const run = (call: WriteCall, id: string, command: CatalogCommand<F>, known?: Loaded<CatalogState<F>>): Promise<Written> =>
    runCommand(services, call, target.aggregate, projections, id, command, { known });
  return {
    projections,
    actions: CATALOG_ACTIONS,
    async create(call, body) {
      const owner = await createOwner(services, call, target, body);
      const data = await parsers.parseCreate(body === undefined ? {} : body, call);
      const id = services.newId();
      return run(call, id, { type: 'Create', data: { ...data, ...owner, id } }, unwritten(target.aggregate));
    },
    async update(call, id, body) {
      await authorizeOnEntity(services, call, table, id, 'write', 'change');
      const current = await currentFields<CatalogCommand<F>, F, CatalogState<F>>(services, target, id);
      const changes = await parsers.parsePatch(body === undefined ? {} : body, current, call);
      await authorizeOwnerChange(services, call, table, id, current.ownerId, changes.ownerId);
      return run(call, id, { type: 'Update', data: { changes } });
    },
    async act(call, id, action) {
      const parsed = parseAction(CATALOG_ACTIONS, action);
      await authorizeOnEntity(services, call, table, id, 'write', parsed);
      return run(call, id, parsed === 'enable' ? { type: 'Enable' } : { type: 'Disable' });
    },
    async remove(call, id) {
      await authorizeOnEntity(services, call, table, id, 'write', 'delete');
      return run(call, id, { type: 'Delete' });
    },
  };
}

/** The body of the runner's `succeed` action. */
export const succeedBody = z.strictObject({ outputs: z.record(z.string(), z.unknown()).default({}) });
/** The body of the runner's `fail` action. */
export const failBody = z.strictObject({ error: z.string().trim().min(1, 'must not be empty').max(10_000, 'at most 10000 characters') });

/** The body of `approve` and `reject`: an optional reason, kept in the event and shown in the history. */
export const decisionBody = z.strictObject({
  reason: z.string().trim().max(2000, 'at most 2000 characters').optional(),
});

/** `{}` or `{reason}` for the command; a blank reason is no reason. */
const decisionOf = ({ reason }: z.infer<typeof decisionBody>): { reason?: string } =>
  reason === undefined || reason === '' ? {} : { reason };

/** The lifecycle actions a client takes through `act` (delete is `remove`). */
export const LIFECYCLE_ACTS = LIFECYCLE_ACTIONS.filter((action) => action !== 'delete') as [LifecycleAction, ...LifecycleAction[]];

/**
 * Who may take an action: approvers and owners need `write` on the entity (docs/contract.md §6);
 * runner actions (start, succeed, fail) are for service accounts with the kind's write, or its
 * administrators (docs/contract.md §2).
 */
export async function authorizeAction(
  services: Services,
  call: WriteCall,
  target: { resource: PermissionResource; projection: string },
  id: string,
  action: LifecycleAction,
): Promise<undefined> {
  const { resource } = target;
  if (ACTION_ACTORS[action] !== 'runner') {
    await authorizeOnEntity(services, call, entityTableOf(target), id, 'write', action);
    return undefined;
  }
  const principal = authorize(call.request, `${resource}:write`);
  if (principal.kind !== 'service_account' && !allows(principal.permissions, `${resource}:admin`)) {
    throw new AppError('FORBIDDEN', `only runner service accounts or administrators may ${action} a ${label(resource)}`, {
      details: { missingPermission: `${resource}:admin` },
    });
  }
  return undefined;
}

/** What the lifecycle writes need beyond the entity's target and bodies. */
export interface LifecycleRules<F> {
  /** Refuses (FORBIDDEN) a caller who may not take `action` on the entity `id`; an approver's right is kept in the event. */
  readonly authorize: (call: WriteCall, id: string, action: LifecycleAction) => Promise<{ authority?: string } | undefined>;
  /** Refuses a caller who may not update (default: without `write` on the entity); creating is `createOwner`'s. */
  readonly authorizeUpdate?: (call: WriteCall, id: string) => void | Promise<void>;
  /** Whether a caller without the kind's write may create an entity no team owns (resources: anyone who reads them). */
  readonly unownedCreates?: boolean;
  /** Completes a create or an action with facts from other streams, prepared on every attempt (see executeCommand). */
  readonly prepare?: (id: string, command: LifecycleCommand<F>) => LifecycleCommand<F> | PreparedCommand<LifecycleCommand<F>>;
}

/**
 * A lifecycle entity's writes (storages, executors, resources): create and update, the actions
 * (`succeed` takes `{outputs}`, `fail` `{error}`), and delete, which is the lifecycle's delete action.
 */
export function lifecycleWrites<F extends Record<string, unknown>>(
  services: Services,
  target: WriteTarget<LifecycleCommand<F>, LifecycleEntityState<F>>,
  parsers: BodyParsers<F, F>,
  rules: LifecycleRules<F> = { authorize: (call, id, action) => authorizeAction(services, call, target, id, action) },
): WriteOperations {
  const table = entityTableOf(target);
  const projections = [target.projection, ...(target.alsoShownBy ?? [])];
  const approvalFlow = services.config.APPROVAL_FLOW;
  const prepare = rules.prepare ?? ((_id: string, command: LifecycleCommand<F>) => command);
  const authorizeUpdate =
    rules.authorizeUpdate ??
    ((call: WriteCall, id: string) => authorizeOnEntity(services, call, table, id, 'write', 'change').then(() => undefined));
  const run = (
    call: WriteCall,
    id: string,
    command: LifecycleCommand<F> | PreparedCommand<LifecycleCommand<F>>,
    known?: Loaded<LifecycleEntityState<F>>,
  ): Promise<Written> => runCommand(services, call, target.aggregate, projections, id, command, { known });
  const act = async (call: WriteCall, id: string, action: LifecycleAction, input: unknown): Promise<Written> => {
    const decided = await rules.authorize(call, id, action);
    const body = input ?? {};
    const extra =
      action === 'succeed'
        ? { outputs: parseInput(succeedBody, body, 'body').outputs }
        : action === 'fail'
          ? { error: parseInput(failBody, body, 'body').error }
          : action === 'approve' || action === 'reject'
            ? {
                ...decisionOf(parseInput(decisionBody, body, 'body')),
                ...(decided?.authority !== undefined && { authority: decided.authority }),
              }
            : {};
    return run(call, id, prepare(id, { type: 'Act', data: { action, approvalFlow, ...extra } }));
  };
  return {
    projections,
    actions: LIFECYCLE_ACTS,
    async create(call, body) {
      const owner = await createOwner(services, call, target, body, rules.unownedCreates === true);
      const fields = await parsers.parseCreate(body === undefined ? {} : body, call);
      const id = services.newId();
      return run(call, id, prepare(id, { type: 'Create', data: { ...fields, ...owner, id, approvalFlow } }), unwritten(target.aggregate));
    },
    async update(call, id, body) {
      await authorizeUpdate(call, id);
      const current = await currentFields<LifecycleCommand<F>, F, LifecycleEntityState<F>>(services, target, id);
      const changes = await parsers.parsePatch(body === undefined ? {} : body, current, call);
      await authorizeOwnerChange(services, call, table, id, current.ownerId, changes.ownerId);
      return run(call, id, { type: 'Update', data: { changes, approvalFlow } });
    },
    // REST also takes `delete` as an action path (POST .../actions/delete), as it always has.
    act: (call, id, action, input) => act(call, id, parseAction(LIFECYCLE_ACTIONS, action), input),
    remove: (call, id) => act(call, id, 'delete', undefined),
  };
}
