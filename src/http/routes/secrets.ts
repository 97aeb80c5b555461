import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { loadAggregate } from '../../commands/handler.js';
import { secretAggregate } from '../../commands/secret.js';
import { secretListSpec } from '../../read/list-specs/secrets.js';
import { catalogReader } from '../../read/catalog.js';
import { AppError, type FieldIssue } from '../../errors.js';
import { SECRET_PROVIDERS, SECRET_TYPES, type SecretFields } from '../../events/secret.js';
import { restoreRedacted } from '../../events/secret-fields.js';
import { SECRET_VALUE_PATHS } from '../../events/secret.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { parseInput, zodIssues } from '../../validation.js';
import { requireIntegrationKind } from './integration-kind.js';
import { catalogRoutes, uuidParam } from './catalog.js';

type SecretProvider = SecretFields['secretProvider'];

const text = z.string().trim().min(1, 'must not be empty').max(500, 'at most 500 characters');
const entry = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  value: z.string().min(1, 'must not be empty').max(20_000, 'at most 20000 characters'),
});
const entries = z
  .array(entry)
  .max(200, 'at most 200 secrets')
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach(({ name }, i) => {
      if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate secret name "${name}"` });
      seen.add(name);
    });
  });

/** Provider-specific configuration (docs/contract.md §2); unknown keys are refused. */
export const secretConfigurationSchemas = {
  aws: z.strictObject({ name: text, awsRegion: text }),
  gcp: z.strictObject({ name: text, gcpRegion: text.optional() }),
  custom: z.strictObject({ secrets: entries }),
} satisfies Record<SecretProvider, z.ZodObject>;

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
  configuration: z.record(z.string(), z.unknown()),
  secretType: z.enum(SECRET_TYPES),
  integrationId: uuidParam.nullable(),
};
/** POST /api/secrets body. */
export const createBody = z.strictObject({
  ...common,
  secretProvider: z.enum(SECRET_PROVIDERS),
  secretType: common.secretType.default('tofu'),
  configuration: common.configuration.default({}),
  integrationId: common.integrationId.default(null),
  description: common.description.default(''),
  labels: common.labels.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});
/** PATCH /api/secrets/{id} body (the provider only to be told it is immutable). */
export const patchBody = z.strictObject({ ...common, secretProvider: z.string() }).partial();
const idParams = z.object({ id: uuidParam });

const invalid = (errors: FieldIssue[]): AppError => new AppError('VALIDATION', `invalid body: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, { errors });

function parseConfiguration(provider: SecretProvider, input: Record<string, unknown>, stored?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  // Custom secret values are write-only: "********" stands for the stored value of the secret with that name.
  const { restored, errors } =
    provider === 'custom'
      ? restoreRedacted({ configuration: input }, { configuration: stored }, SECRET_VALUE_PATHS, {
          message: 'is write-only: send the secret itself, not ******** (no stored secret has this name)',
        })
      : { restored: { configuration: input }, errors: [] as FieldIssue[] };
  const merged = restored.configuration;
  const parsed = secretConfigurationSchemas[provider].safeParse(merged);
  if (!parsed.success) errors.push(...zodIssues(parsed.error, 'configuration'));
  if (errors.length > 0 || !parsed.success) throw invalid(errors);
  return parsed.data;
}

function parseCreate(body: unknown): SecretFields & { status: 'enabled' | 'disabled' } {
  const parsed = createBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  return { ...parsed.data, configuration: parseConfiguration(parsed.data.secretProvider, parsed.data.configuration) };
}

function parsePatch(body: unknown, current: SecretFields): Partial<SecretFields> {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  const { configuration, secretProvider, ...rest } = parsed.data;
  return {
    ...rest,
    // Sent only to be told it is immutable (the decider answers 422 when it differs).
    ...(secretProvider !== undefined && { secretProvider: secretProvider as SecretProvider }),
    ...(configuration !== undefined && { configuration: parseConfiguration(current.secretProvider, configuration, current.configuration) }),
  };
}

/**
 * Aws and gcp secrets are read from that cloud, so their integration must be a cloud integration of
 * the same provider. Checking here, outside the command's append, is safe because an integration's
 * type and provider never change; whether it exists and is enabled is the command handler's check.
 */
async function checkIntegration(services: Services, provider: SecretProvider, integrationId: string | null | undefined): Promise<void> {
  if (provider === 'custom' || integrationId === null || integrationId === undefined) return;
  await requireIntegrationKind(services, integrationId, { type: 'cloud', provider, users: `${provider} secrets` });
}

/** Runs before the kit's POST and PATCH handlers, in their order: permission, body, then the integration's kind. */
async function verifyIntegration(services: Services, request: FastifyRequest): Promise<void> {
  const route = request.routeOptions.url ?? '';
  const body = request.body === undefined ? {} : request.body;
  if (request.method === 'POST' && route.endsWith('/secrets')) {
    authorize(request, 'secret:write');
    const data = parseCreate(body);
    await checkIntegration(services, data.secretProvider, data.integrationId);
  } else if (request.method === 'PATCH') {
    authorize(request, 'secret:write');
    const { id } = parseInput(idParams, request.params, 'path');
    const { state } = await loadAggregate(services, secretAggregate, id);
    if (state.status !== 'active') return;
    const { integrationId } = parsePatch(body, state.fields);
    if (integrationId !== state.fields.integrationId) await checkIntegration(services, state.fields.secretProvider, integrationId);
  }
}

/** REST for secrets (docs/contract.md §2–§3): the catalog kit plus the integration-kind rule. */
export function secretsRoutes(app: FastifyInstance, services: Services): void {
  // The kit parses bodies synchronously and the integration's kind needs a read of its stream, so a
  // preHandler in a child context (scoped to these routes) checks it before the kit's handlers run.
  void app.register((scoped, _options, done) => {
    scoped.addHook('preHandler', (request) => verifyIntegration(services, request));
    catalogRoutes(scoped, services, {
      plural: 'secrets',
      resource: 'secret',
      projection: 'secrets',
      aggregate: secretAggregate,
      listSpec: secretListSpec,
      reader: catalogReader('secrets'),
      parseCreate,
      parsePatch,
    });
    done();
  });
}
