import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { loadAggregate } from '../../commands/handler.js';
import { workspaceAggregate } from '../../commands/workspace.js';
import { workspaceListSpec } from '../../read/list-specs/workspaces.js';
import { catalogReader } from '../../read/catalog.js';
import { AppError, type FieldIssue } from '../../errors.js';
import { WORKSPACE_PROVIDERS, type WorkspaceFields } from '../../events/workspace.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { parseInput, zodIssues } from '../../validation.js';
import { requireIntegrationKind } from './integration-kind.js';
import { catalogRoutes, uuidParam } from './catalog.js';

type WorkspaceProvider = WorkspaceFields['workspaceProvider'];

/** Workspace configuration (docs/contract.md §2); unknown keys are refused. */
export const workspaceConfigurationSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000, 'at most 2000 characters'),
  defaultBranch: z.string().trim().min(1, 'must not be empty').max(255, 'at most 255 characters').default('main'),
});

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
  configuration: workspaceConfigurationSchema,
  integrationId: uuidParam,
};
/** POST /api/workspaces body. */
export const createBody = z.strictObject({
  ...common,
  workspaceProvider: z.enum(WORKSPACE_PROVIDERS),
  // An absent configuration is parsed as {} so the answer names the missing configuration.url.
  configuration: z.preprocess((value) => (value === undefined ? {} : value), common.configuration),
  description: common.description.default(''),
  labels: common.labels.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});
/** PATCH /api/workspaces/{id} body (the provider only to be told it is immutable). */
export const patchBody = z.strictObject({ ...common, workspaceProvider: z.string() }).partial();
const idParams = z.object({ id: uuidParam });

const invalid = (errors: FieldIssue[]): AppError => new AppError('VALIDATION', `invalid body: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, { errors });

function parseCreate(body: unknown): WorkspaceFields & { status: 'enabled' | 'disabled' } {
  const parsed = createBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  return parsed.data;
}

function parsePatch(body: unknown): Partial<WorkspaceFields> {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  const { workspaceProvider, ...rest } = parsed.data;
  // workspaceProvider is passed on only to be told it is immutable (the decider answers 422 when it differs).
  return { ...rest, ...(workspaceProvider !== undefined && { workspaceProvider: workspaceProvider as WorkspaceProvider }) };
}

/**
 * A workspace lives on a git server, so its integration must be a git integration of the same
 * provider. Checking here, outside the command's append, is safe because an integration's type and
 * provider never change; whether it exists and is enabled is the command handler's check.
 */
async function checkIntegration(services: Services, provider: WorkspaceProvider, integrationId: string): Promise<void> {
  await requireIntegrationKind(services, integrationId, { type: 'git', provider, users: `${provider} workspaces` });
}

/** Runs before the kit's POST and PATCH handlers, in their order: permission, body, then the integration's kind. */
async function verifyIntegration(services: Services, request: FastifyRequest): Promise<void> {
  const route = request.routeOptions.url ?? '';
  const body = request.body === undefined ? {} : request.body;
  if (request.method === 'POST' && route.endsWith('/workspaces')) {
    authorize(request, 'workspace:write');
    const data = parseCreate(body);
    await checkIntegration(services, data.workspaceProvider, data.integrationId);
  } else if (request.method === 'PATCH') {
    authorize(request, 'workspace:write');
    const { id } = parseInput(idParams, request.params, 'path');
    const { integrationId } = parsePatch(body);
    if (integrationId === undefined) return;
    const { state } = await loadAggregate(services, workspaceAggregate, id);
    if (state.status === 'active' && integrationId !== state.fields.integrationId) await checkIntegration(services, state.fields.workspaceProvider, integrationId);
  }
}

/** REST for workspaces (docs/contract.md §2–§3): the catalog kit plus the integration-kind rule. */
export function workspacesRoutes(app: FastifyInstance, services: Services): void {
  // The kit parses bodies synchronously and the integration's kind needs a read of its stream, so a
  // preHandler in a child context (scoped to these routes) checks it before the kit's handlers run.
  void app.register((scoped, _options, done) => {
    scoped.addHook('preHandler', (request) => verifyIntegration(services, request));
    catalogRoutes(scoped, services, {
      plural: 'workspaces',
      resource: 'workspace',
      projection: 'workspaces',
      aggregate: workspaceAggregate,
      listSpec: workspaceListSpec,
      reader: catalogReader('workspaces'),
      parseCreate,
      parsePatch,
    });
    done();
  });
}
