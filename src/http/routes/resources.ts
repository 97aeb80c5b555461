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
import { catalogReader } from '../../read/catalog.js';
import { AppError, notFound, type FieldIssue } from '../../errors.js';
import { RESOURCE_SECRET_PATHS, type ResourceFields, type ResourceVariable } from '../../events/resource.js';
import { restoreRedacted } from '../../events/secret-fields.js';
import { RESOURCE_LINKS } from '../../projections/resources.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { parseInput, zodIssues } from '../../validation.js';
import { answerCommand, registerEntityReads, uuidParam, type EntitySurface } from './catalog.js';
import { authorizeAction, registerLifecycleActions } from './lifecycle.js';


const jsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
const variable = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  value: jsonValue,
  sensitive: z.boolean().default(false),
});
const ids = z
  .array(uuidParam)
  .max(100, 'at most 100 ids')
  .refine((list) => new Set(list).size === list.length, 'must not repeat an id');
const optionalId = uuidParam.nullable();

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
  variables: z
    .array(variable)
    .max(500, 'at most 500 variables')
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach(({ name }, i) => {
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate variable name "${name}"` });
        seen.add(name);
      });
    }),
  storagePath: z.string().trim().min(1, 'must not be empty').max(1000, 'at most 1000 characters').nullable(),
  templateId: uuidParam,
  sourceCodeVersionId: optionalId,
  storageId: optionalId,
  workspaceId: optionalId,
  integrationIds: ids,
  secretIds: ids,
  parentIds: ids,
};
// `abstract` and `creatorId` are not client-settable: strict objects refuse them with a 400.
/** POST /api/resources body. */
export const createBody = z.strictObject({
  ...common,
  description: common.description.default(''),
  labels: common.labels.default([]),
  variables: common.variables.default([]),
  storagePath: common.storagePath.default(null),
  sourceCodeVersionId: optionalId.default(null),
  storageId: optionalId.default(null),
  workspaceId: optionalId.default(null),
  integrationIds: ids.default([]),
  secretIds: ids.default([]),
  parentIds: ids.default([]),
});
/** PATCH /api/resources/{id} body. */
export const patchBody = z.strictObject(common).partial();

const idParams = z.object({ id: uuidParam });

const invalid = (errors: FieldIssue[]): AppError => new AppError('VALIDATION', `invalid body: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, { errors });

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  return parsed.data;
}

/** "********" in a PATCH stands for the stored value of the sensitive variable with that name (write-only values). */
function keepStoredValues(sent: readonly ResourceVariable[], stored: readonly ResourceVariable[]): ResourceVariable[] {
  const { restored, errors } = restoreRedacted({ variables: sent }, { variables: stored }, RESOURCE_SECRET_PATHS, {
    when: (variable) => variable.sensitive === true,
    message: 'is write-only: send the value itself, not ******** (no stored sensitive variable has this name)',
  });
  if (errors.length > 0) throw invalid(errors);
  return restored.variables as ResourceVariable[];
}

/**
 * REST for resources (docs/contract.md §2, §6). Unlike storages and executors, who may write depends on the
 * resource: its creator acts as owner on it even with only `resource:read` (role `default`).
 */
export function resourcesRoutes(app: FastifyInstance, services: Services): void {
  const deps: CommandDeps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  const approvalFlow = services.config.APPROVAL_FLOW;
  const surface: EntitySurface<ResourceCommand, ResourceState> = {
    plural: 'resources',
    resource: 'resource',
    projection: 'resources',
    aggregate: resourceAggregate,
    listSpec: resourceListSpec,
    reader: catalogReader('resources', RESOURCE_LINKS),
  };
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
    const body = parseBody(createBody, request.body);
    const template = (await loadAggregate(deps, templateAggregate, body.templateId)).state;
    if (template.status !== 'active') {
      const message = `template ${body.templateId} does not exist`;
      throw new AppError('UNPROCESSABLE', `invalid references: templateId`, { errors: [{ field: 'templateId', message }] });
    }
    const id = services.newId();
    // Nothing is stored yet, so a masked "********" value can stand for nothing: refused (400).
    const variables = keepStoredValues(body.variables, []);
    const fields: ResourceFields = { ...body, variables, abstract: template.fields.abstract, creatorId: principal.userId };
    void reply.header('Location', `/api/resources/${id}`);
    return answerCommand(request, reply, services, surface, id, withLineage(deps, id, { type: 'Create', data: { ...fields, id, approvalFlow } }), 201);
  });

  app.patch('/resources/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await authorizeOwner(request, id, 'update');
    const current = await load(id);
    const { variables, ...rest } = parseBody(patchBody, request.body);
    const changes: Partial<ResourceFields> = { ...rest, ...(variables !== undefined && { variables: keepStoredValues(variables, current.fields.variables) }) };
    return answerCommand(request, reply, services, surface, id, { type: 'Update', data: { changes } });
  });

  registerLifecycleActions(app, services, surface, {
    authorize: authorizeResourceAction,
    // Parent/child rules need the lineage's streams: decided on every attempt (commands/lineage.ts).
    prepare: (id, command) => withLineage(deps, id, command),
  });
}
