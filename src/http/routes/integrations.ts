import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { integrationAggregate } from '../../commands/integration.js';
import { integrationListSpec } from '../../read/list-specs/integrations.js';
import { catalogReader } from '../../read/catalog.js';
import { AppError, type FieldIssue } from '../../errors.js';
import { INTEGRATION_PROVIDERS, INTEGRATION_SECRET_KEYS, type IntegrationFields } from '../../events/integration.js';
import { restoreRedacted } from '../../events/secret-fields.js';
import type { Services } from '../../services.js';
import { zodIssues } from '../../validation.js';
import { catalogRoutes } from './catalog.js';

const value = z.string().trim().min(1, 'must not be empty').max(500, 'at most 500 characters');
const secret = z.string().min(1, 'must not be empty').max(20_000, 'at most 20000 characters');
const url = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
const git = z.strictObject({ token: secret.optional(), url: url.optional() });

/** Provider-specific configuration (docs/contract.md §2); unknown keys are refused. */
export const integrationConfigurationSchemas: Record<string, z.ZodObject> = {
  aws: z.strictObject({ awsAccessKeyId: value, awsSecretAccessKey: secret, awsAccount: value, awsDefaultRegion: value.optional(), awsAssumedRoleName: value.optional() }),
  azurerm: z.strictObject({ clientId: value, clientSecret: secret, tenantId: value, subscriptionId: value }),
  gcp: z.strictObject({ gcpProjectId: value, gcpServiceAccountKey: secret }),
  mongodb_atlas: z.strictObject({ orgId: value, publicKey: value, privateKey: secret }),
  datadog: z.strictObject({ apiUrl: url, apiKey: secret, appKey: secret }),
  slack: z.strictObject({ botToken: secret }),
  github: git,
  gitlab: git,
  bitbucket: git,
  azure_devops: git,
  git_public: z.strictObject({}),
};

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
  configuration: z.record(z.string(), z.unknown()),
};
/** POST /api/integrations body. */
export const createBody = z.strictObject({
  ...common,
  integrationType: z.enum(['cloud', 'git', 'notification']),
  integrationProvider: z.string().min(1, 'must not be empty'),
  description: common.description.default(''),
  labels: common.labels.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});
/** PATCH /api/integrations/{id} body (type and provider only to be told they are immutable). */
export const patchBody = z.strictObject({ ...common, integrationType: z.string(), integrationProvider: z.string() }).partial();

const invalid = (errors: FieldIssue[]): AppError => new AppError('VALIDATION', `invalid body: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, { errors });

/**
 * Validates a configuration against its provider. Write-only secrets sent back as "********" keep
 * the stored value; with no stored value that is a 400 naming the field.
 */
function parseConfiguration(provider: string, input: Record<string, unknown>, stored?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const schema = integrationConfigurationSchemas[provider];
  if (!schema) return input;
  const { restored: merged, errors } = restoreRedacted(input, stored, INTEGRATION_SECRET_KEYS, {
    fieldPrefix: 'configuration',
    message: 'is write-only: send the secret itself, not ********',
  });
  const parsed = schema.safeParse(merged);
  if (!parsed.success) errors.push(...zodIssues(parsed.error, 'configuration'));
  if (errors.length > 0) throw invalid(errors);
  return parsed.success ? parsed.data : merged;
}

function parseCreate(body: unknown): IntegrationFields & { status: 'enabled' | 'disabled' } {
  const parsed = createBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  const data = parsed.data;
  const allowed: readonly string[] = INTEGRATION_PROVIDERS[data.integrationType];
  if (!allowed.includes(data.integrationProvider)) {
    throw invalid([{ field: 'integrationProvider', message: `must be one of ${allowed.join(', ')} for integrationType ${data.integrationType}` }]);
  }
  return { ...data, configuration: parseConfiguration(data.integrationProvider, data.configuration) };
}

function parsePatch(body: unknown, current: IntegrationFields): Partial<IntegrationFields> {
  const parsed = patchBody.safeParse(body);
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  const { configuration, integrationType, integrationProvider, ...rest } = parsed.data;
  return {
    ...rest,
    // Sent only to be told they are immutable (the decider answers 422 when they differ).
    ...(integrationType !== undefined && { integrationType: integrationType as IntegrationFields['integrationType'] }),
    ...(integrationProvider !== undefined && { integrationProvider }),
    ...(configuration !== undefined && { configuration: parseConfiguration(current.integrationProvider, configuration, current.configuration) }),
  };
}

/** The integrations REST surface. */
export function integrationRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    plural: 'integrations',
    resource: 'integration',
    projection: 'integrations',
    aggregate: integrationAggregate,
    listSpec: integrationListSpec,
    reader: catalogReader('integrations'),
    parseCreate,
    parsePatch,
  });
}
