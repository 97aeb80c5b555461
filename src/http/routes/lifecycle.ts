import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { allows, type PermissionResource } from '../../model/permissions.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction } from '../../model/lifecycle.js';
import type { LifecycleCommand, LifecycleEntityState } from '../../commands/lifecycle-entity.js';
import type { Aggregate } from '../../commands/decider.js';
import type { PreparedCommand } from '../../commands/handler.js';
import { AppError } from '../../errors.js';
import type { DomainEvent } from '../../events/codec.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { parseInput } from '../../validation.js';
import { answerCommand, registerEntityReads, registerEntityWrites, uuidParam, type EntitySurface } from './catalog.js';

/** A lifecycle entity's REST surface (storages, executors): reads as every entity, writes and actions. */
export interface LifecycleRouteDefinition<F extends Record<string, unknown>> extends EntitySurface<LifecycleCommand<F>, LifecycleEntityState<F>> {
  readonly aggregate: Aggregate<LifecycleCommand<F>, DomainEvent, LifecycleEntityState<F>>;
  readonly parseCreate: (body: unknown) => F | Promise<F>;
  readonly parsePatch: (body: unknown, current: F) => Partial<F> | Promise<Partial<F>>;
}

const idParams = z.object({ id: uuidParam });
const actionParams = z.object({ id: uuidParam, action: z.enum(LIFECYCLE_ACTIONS, { message: `unknown action; allowed: ${LIFECYCLE_ACTIONS.join(', ')}` }) });
/** The body of the runner's `succeed` action. */
export const succeedBody = z.strictObject({ outputs: z.record(z.string(), z.unknown()).default({}) });
/** The body of the runner's `fail` action. */
export const failBody = z.strictObject({ error: z.string().trim().min(1, 'must not be empty').max(10_000, 'at most 10000 characters') });

/**
 * Who may take an action: approvers and owners need `{resource}:write`; runner actions (start,
 * succeed, fail) are for service accounts with write access, or administrators (docs/contract.md §2).
 */
export function authorizeAction(request: FastifyRequest, resource: PermissionResource, action: LifecycleAction): void {
  const principal = authorize(request, `${resource}:write`);
  if (ACTION_ACTORS[action] !== 'runner') return;
  if (principal.kind !== 'service_account' && !allows(principal.permissions, `${resource}:admin`)) {
    throw new AppError('FORBIDDEN', `only runner service accounts or administrators may ${action} a ${resource.replaceAll('_', ' ')}`, { details: { missingPermission: `${resource}:admin` } });
  }
}

/** A lifecycle entity's REST surface: reads, writes, actions and delete. */
export function lifecycleRoutes<F extends Record<string, unknown>>(app: FastifyInstance, services: Services, def: LifecycleRouteDefinition<F>): void {
  const approvalFlow = services.config.APPROVAL_FLOW;
  registerEntityReads(app, services, def);
  registerEntityWrites(app, services, def, {
    parseCreate: def.parseCreate,
    parsePatch: def.parsePatch,
    create: (fields, id): LifecycleCommand<F> => ({ type: 'Create', data: { ...fields, id, approvalFlow } }),
    update: (changes): LifecycleCommand<F> => ({ type: 'Update', data: { changes } }),
  });

  registerLifecycleActions(app, services, def, { authorize: (request, _id, action) => authorizeAction(request, def.resource, action) });
}

/** What the action and delete routes need beyond the entity's surface. */
export interface ActionRules<F> {
  /** Refuses (FORBIDDEN) a caller who may not take `action` on the entity `id`. */
  readonly authorize: (request: FastifyRequest, id: string, action: LifecycleAction) => void | Promise<void>;
  /** Completes an action with facts from other streams, prepared on every attempt (see executeCommand). */
  readonly prepare?: (id: string, command: LifecycleCommand<F>) => LifecycleCommand<F> | PreparedCommand<LifecycleCommand<F>>;
}

/**
 * `POST /{plural}/{id}/actions/{action}` (succeed takes `{outputs}`, fail `{error}`) and `DELETE
 * /{plural}/{id}` (the lifecycle's delete action), answering with the entity as the read model shows it.
 */
export function registerLifecycleActions<F extends Record<string, unknown>>(
  app: FastifyInstance,
  services: Services,
  def: EntitySurface<LifecycleCommand<F>, LifecycleEntityState<F>>,
  rules: ActionRules<F>,
): void {
  const approvalFlow = services.config.APPROVAL_FLOW;
  const prepare = rules.prepare ?? ((_id: string, command: LifecycleCommand<F>) => command);
  const act = (request: FastifyRequest, reply: FastifyReply, id: string, action: LifecycleAction, extra: { outputs?: Record<string, unknown>; error?: string } = {}) =>
    answerCommand(request, reply, services, def, id, prepare(id, { type: 'Act', data: { action, approvalFlow, ...extra } }));

  app.post(`/${def.plural}/:id/actions/:action`, async (request, reply) => {
    const { id, action } = parseInput(actionParams, request.params, 'path');
    await rules.authorize(request, id, action);
    const body = request.body ?? {};
    const extra =
      action === 'succeed' ? { outputs: parseInput(succeedBody, body, 'body').outputs } : action === 'fail' ? { error: parseInput(failBody, body, 'body').error } : {};
    return act(request, reply, id, action, extra);
  });

  app.delete(`/${def.plural}/:id`, async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await rules.authorize(request, id, 'delete');
    return act(request, reply, id, 'delete');
  });
}
