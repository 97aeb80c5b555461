import { z } from 'zod';
import type { CatalogCommand, CatalogState, EntityStatus } from '../../commands/catalog-entity.js';
import type { Aggregate } from '../../commands/decider.js';
import { loadAggregate, unwritten, type Loaded, type PreparedCommand } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import type { LifecycleCommand, LifecycleEntityState } from '../../commands/lifecycle-entity.js';
import { AppError, notFound } from '../../errors.js';
import type { DomainEvent } from '../../events/codec.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction } from '../../model/lifecycle.js';
import { allows, type PermissionResource } from '../../model/permissions.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { commandDeps, runCommand, type WriteCall, type WriteOperations, type Written } from './write.js';

/** What the writes of an entity need to know of it. */
export interface WriteTarget<C, S> {
  readonly resource: PermissionResource;
  /** The projection (and table) that shows the entity. */
  readonly projection: string;
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
): WriteOperations {
  const projections = [target.projection];
  const run = (call: WriteCall, id: string, command: CatalogCommand<F>, known?: Loaded<CatalogState<F>>): Promise<Written> =>
    runCommand(services, call, target.aggregate, projections, id, command, { known });
  return {
    projections,
    actions: CATALOG_ACTIONS,
    async create(call, body) {
      authorize(call.request, `${target.resource}:write`);
      const data = await parsers.parseCreate(body === undefined ? {} : body, call);
      const id = services.newId();
      return run(call, id, { type: 'Create', data: { ...data, id } }, unwritten(target.aggregate));
    },
    async update(call, id, body) {
      authorize(call.request, `${target.resource}:write`);
      const changes = await parsers.parsePatch(body === undefined ? {} : body, await currentFields(services, target, id), call);
      return run(call, id, { type: 'Update', data: { changes } });
    },
    async act(call, id, action) {
      authorize(call.request, `${target.resource}:write`);
      return run(call, id, parseAction(CATALOG_ACTIONS, action) === 'enable' ? { type: 'Enable' } : { type: 'Disable' });
    },
    async remove(call, id) {
      authorize(call.request, `${target.resource}:write`);
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
const decisionOf = ({ reason }: z.infer<typeof decisionBody>): { reason?: string } => (reason === undefined || reason === '' ? {} : { reason });

/** The lifecycle actions a client takes through `act` (delete is `remove`). */
export const LIFECYCLE_ACTS = LIFECYCLE_ACTIONS.filter((action) => action !== 'delete') as [LifecycleAction, ...LifecycleAction[]];

/**
 * Who may take an action: approvers and owners need `{resource}:write`; runner actions (start,
 * succeed, fail) are for service accounts with write access, or administrators (docs/contract.md §2).
 */
export function authorizeAction(call: WriteCall, resource: PermissionResource, action: LifecycleAction): void {
  const principal = authorize(call.request, `${resource}:write`);
  if (ACTION_ACTORS[action] !== 'runner') return;
  if (principal.kind !== 'service_account' && !allows(principal.permissions, `${resource}:admin`)) {
    throw new AppError('FORBIDDEN', `only runner service accounts or administrators may ${action} a ${label(resource)}`, {
      details: { missingPermission: `${resource}:admin` },
    });
  }
}

/** What the lifecycle writes need beyond the entity's target and bodies. */
export interface LifecycleRules<F> {
  /** Refuses (FORBIDDEN) a caller who may not take `action` on the entity `id`. */
  readonly authorize: (call: WriteCall, id: string, action: LifecycleAction) => void | Promise<void>;
  /** Refuses a caller who may not create (`id` undefined) or update (default: without `{resource}:write`). */
  readonly authorizeWrite?: (call: WriteCall, id: string | undefined) => void | Promise<void>;
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
  rules: LifecycleRules<F> = { authorize: (call, _id, action) => authorizeAction(call, target.resource, action) },
): WriteOperations {
  const projections = [target.projection, ...(target.alsoShownBy ?? [])];
  const approvalFlow = services.config.APPROVAL_FLOW;
  const prepare = rules.prepare ?? ((_id: string, command: LifecycleCommand<F>) => command);
  const authorizeWrite = rules.authorizeWrite ?? ((call: WriteCall) => void authorize(call.request, `${target.resource}:write`));
  const run = (call: WriteCall, id: string, command: LifecycleCommand<F> | PreparedCommand<LifecycleCommand<F>>, known?: Loaded<LifecycleEntityState<F>>): Promise<Written> =>
    runCommand(services, call, target.aggregate, projections, id, command, { known });
  const act = async (call: WriteCall, id: string, action: LifecycleAction, input: unknown): Promise<Written> => {
    await rules.authorize(call, id, action);
    const body = input ?? {};
    const extra =
      action === 'succeed'
        ? { outputs: parseInput(succeedBody, body, 'body').outputs }
        : action === 'fail'
          ? { error: parseInput(failBody, body, 'body').error }
          : action === 'approve' || action === 'reject'
            ? decisionOf(parseInput(decisionBody, body, 'body'))
            : {};
    return run(call, id, prepare(id, { type: 'Act', data: { action, approvalFlow, ...extra } }));
  };
  return {
    projections,
    actions: LIFECYCLE_ACTS,
    async create(call, body) {
      await authorizeWrite(call, undefined);
      const fields = await parsers.parseCreate(body === undefined ? {} : body, call);
      const id = services.newId();
      return run(call, id, prepare(id, { type: 'Create', data: { ...fields, id, approvalFlow } }), unwritten(target.aggregate));
    },
    async update(call, id, body) {
      await authorizeWrite(call, id);
      const changes = await parsers.parsePatch(body === undefined ? {} : body, await currentFields(services, target, id), call);
      return run(call, id, { type: 'Update', data: { changes, approvalFlow } });
    },
    // REST also takes `delete` as an action path (POST .../actions/delete), as it always has.
    act: (call, id, action, input) => act(call, id, parseAction(LIFECYCLE_ACTIONS, action), input),
    remove: (call, id) => act(call, id, 'delete', undefined),
  };
}
