import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CommandDeps } from '../../commands/handler.js';
import { storageAggregate } from '../../commands/storage.js';
import { storageListSpec } from '../../read/list-specs/storages.js';
import { catalogReader } from '../../read/catalog.js';
import { AppError, type FieldIssue } from '../../errors.js';
import { STORAGE_PROVIDERS, type StorageFields } from '../../events/storage.js';
import type { Services } from '../../services.js';
import { zodIssues } from '../../validation.js';
import { uuidParam } from './catalog.js';
import { requireIntegrationKind } from './integration-kind.js';
import { lifecycleRoutes } from './lifecycle.js';

const value = z.string().trim().min(1, 'must not be empty').max(255, 'at most 255 characters');

/** Where state files live, per provider (docs/contract.md §2); unknown keys are refused. */
export const storageConfigurationSchemas: Record<StorageFields['storageProvider'], z.ZodObject> = {
  aws: z.strictObject({ awsBucketName: value, awsRegion: value }),
  azurerm: z.strictObject({ resourceGroupName: value, storageAccountName: value, containerName: value }),
  gcp: z.strictObject({ gcpBucketName: value, gcpRegion: value }),
};

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
  configuration: z.record(z.string(), z.unknown()),
  integrationId: uuidParam,
  storageType: z.literal('tofu', { message: 'must be tofu' }),
};
/** POST /api/storages body. */
export const createBody = z.strictObject({
  ...common,
  storageProvider: z.enum(STORAGE_PROVIDERS, { message: `must be one of ${STORAGE_PROVIDERS.join(', ')}` }),
  storageType: common.storageType.default('tofu'),
  description: common.description.default(''),
  labels: common.labels.default([]),
});
/** PATCH /api/storages/{id} body (the provider only to be told it is immutable). */
export const patchBody = z.strictObject({ ...common, storageProvider: z.string() }).partial();

const invalid = (errors: FieldIssue[]): AppError => new AppError('VALIDATION', `invalid body: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, { errors });

function parseConfiguration(provider: StorageFields['storageProvider'], input: Record<string, unknown>): Record<string, unknown> {
  const parsed = storageConfigurationSchemas[provider].safeParse(input);
  if (!parsed.success) throw invalid(zodIssues(parsed.error, 'configuration'));
  return parsed.data;
}

const cloudIntegration = (deps: CommandDeps, id: string, provider: string) => requireIntegrationKind(deps, id, { type: 'cloud', provider, users: `${provider} storages` });

/** The storages REST surface. */
export function storagesRoutes(app: FastifyInstance, services: Services): void {
  lifecycleRoutes(app, services, {
    plural: 'storages',
    resource: 'storage',
    projection: 'storages',
    aggregate: storageAggregate,
    listSpec: storageListSpec,
    reader: catalogReader('storages'),
    async parseCreate(body) {
      const parsed = createBody.safeParse(body);
      if (!parsed.success) throw invalid(zodIssues(parsed.error));
      const data = parsed.data;
      const fields = { ...data, configuration: parseConfiguration(data.storageProvider, data.configuration) };
      await cloudIntegration(services, data.integrationId, data.storageProvider);
      return fields;
    },
    async parsePatch(body, current) {
      const parsed = patchBody.safeParse(body);
      if (!parsed.success) throw invalid(zodIssues(parsed.error));
      const { configuration, storageProvider, ...rest } = parsed.data;
      if (rest.integrationId !== undefined) await cloudIntegration(services, rest.integrationId, current.storageProvider);
      return {
        ...rest,
        // Sent only to be told it is immutable (the decider answers 422 when it differs).
        ...(storageProvider !== undefined && { storageProvider: storageProvider as StorageFields['storageProvider'] }),
        ...(configuration !== undefined && { configuration: parseConfiguration(current.storageProvider, configuration) }),
      };
    },
  });
}
