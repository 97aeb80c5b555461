import type { FastifyInstance } from 'fastify';
import { storageAggregate } from '../../commands/storage.js';
import { entityInput } from '../../edge/entity-input.js';
import type { StorageFields } from '../../events/storage.js';
import { storageEntity } from '../../model/storage.js';
import { storageListSpec } from '../../read/list-specs/storages.js';
import type { Services } from '../../services.js';
import { declaredSurface } from './catalog.js';
import { requireIntegrationKind } from './integration-kind.js';
import { lifecycleRoutes } from './lifecycle.js';

const input = entityInput(storageEntity);

/** A storage is reached with the credentials of a cloud integration of its provider. */
const cloudIntegration = (services: Services, provider: StorageFields['storageProvider'], integrationId: string | undefined) =>
  requireIntegrationKind(services, integrationId, { type: 'cloud', provider, users: `${provider} storages` });

/** REST for storages (docs/contract.md §2–§3): lifecycle actions without approvals, plus the integration-kind rule. */
export function storagesRoutes(app: FastifyInstance, services: Services): void {
  lifecycleRoutes(app, services, {
    ...declaredSurface(storageEntity, storageAggregate, storageListSpec),
    async parseCreate(body) {
      const data = input.parseCreate(body);
      await cloudIntegration(services, data.storageProvider, data.integrationId);
      return data;
    },
    async parsePatch(body, current: StorageFields) {
      const changes = input.parsePatch(body, current);
      if (changes.integrationId !== current.integrationId) await cloudIntegration(services, current.storageProvider, changes.integrationId);
      return changes;
    },
  });
}
