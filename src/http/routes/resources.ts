import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { allows } from '../../model/permissions.js';
import type { Principal } from '../../model/principal.js';
import { loadAggregate, type CommandDeps } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import { resourceAggregate, type ResourceCommand, type ResourceState } from '../../commands/resource.js';
import { withLineage } from '../../commands/resource-lineage.js';
import { templateAggregate } from '../../commands/template.js';
import { resourceListSpec } from '../../read/list-specs/resources.js';
import { AppError, notFound } from '../../errors.js';
import type { ResourceFields } from '../../events/resource.js';
import { entityInput } from '../../edge/entity-input.js';
import { resourceEntity } from '../../model/resource.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { parseInput } from '../../validation.js';
import { answerCommand, declaredSurface, registerEntityReads, uuidParam, type EntitySurface } from './catalog.js';
import { authorizeAction, registerLifecycleActions } from './lifecycle.js';


const idParams = z.object({ id: uuidParam });
const input = entityInput(resourceEntity);

/**
 * REST for resources (docs/contract.md §2, §6). Unlike storages and executors, who may write depends on the
 * resource: its creator acts as owner on it even with only `resource:read` (role `default`).
 */
export function resourcesRoutes(app: FastifyInstance, services: Services): void {
  const deps: CommandDeps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  const approvalFlow = services.config.APPROVAL_FLOW;
  const surface: EntitySurface<ResourceCommand, ResourceState> = declaredSurface(resourceEntity, resourceAggregate, resourceListSpec);
  registerEntityReads(app, services, surface);

  const load = async (id: string) => {
    const { state } = await loadAggregate(deps, resourceAggregate, id);
    if (state.status !== 'active') throw notFound('resource not found');
    return state;
  };

  /** Owners are the creator and every holder of `resource:write`; the creator comes from the write model. */
  async function authorizeOwner(request: FastifyRequest, id: string, verb: string): Promise<Principal> {
    const principal = authorize(request, 'resource:read');
    if (allows(principal.permissions, 'resource:write')) return principal;
    const state = await load(id);
    if (state.fields.creatorId === principal.userId) return principal;
    throw new AppError('FORBIDDEN', `only the creator of a resource or holders of resource:write may ${verb} it`, { details: { missingPermission: 'resource:write' } });
  }

  /** Owners act on their own resources; approvers and runners as on every lifecycle entity. */
  async function authorizeResourceAction(request: FastifyRequest, id: string, action: LifecycleAction): Promise<void> {
    if (ACTION_ACTORS[action] === 'owner') await authorizeOwner(request, id, action);
    else authorizeAction(request, 'resource', action);
  }

  app.post('/resources', async (request, reply) => {
    // docs/contract.md §6: role default (resource:read) may request resources; it then owns them.
    const principal = authorize(request, 'resource:read');
    // A masked "********" value can stand for nothing yet: refused (400) with the body's other faults.
    const body = input.parseCreate(request.body);
    const template = (await loadAggregate(deps, templateAggregate, body.templateId)).state;
    if (template.status !== 'active') {
      const message = `template ${body.templateId} does not exist`;
      throw new AppError('UNPROCESSABLE', `invalid references: templateId`, { errors: [{ field: 'templateId', message }] });
    }
    const id = services.newId();
    const fields: ResourceFields = { ...body, abstract: template.fields.abstract, creatorId: principal.userId };
    void reply.header('Location', `/api/resources/${id}`);
    return answerCommand(request, reply, services, surface, id, withLineage(deps, id, { type: 'Create', data: { ...fields, id, approvalFlow } }), 201);
  });

  app.patch('/resources/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await authorizeOwner(request, id, 'update');
    const current = await load(id);
    const changes: Partial<ResourceFields> = input.parsePatch(request.body, current.fields);
    return answerCommand(request, reply, services, surface, id, { type: 'Update', data: { changes } });
  });

  registerLifecycleActions(app, services, surface, {
    authorize: authorizeResourceAction,
    // Parent/child rules need the lineage's streams: decided on every attempt (commands/lineage.ts).
    prepare: (id, command) => withLineage(deps, id, command),
  });
}
