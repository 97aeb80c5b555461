import type { FastifyInstance } from 'fastify';
import { storageAggregate } from '../../commands/storage.js';
import { entityInput } from '../../edge/entity-input.js';
import { storageEntity } from '../../model/storage.js';
import { storageListSpec } from '../../read/list-specs/storages.js';
import type { Services } from '../../services.js';
import { declaredSurface } from './catalog.js';
import { withIntegrationKinds } from './integration-kind.js';
import { lifecycleRoutes } from './lifecycle.js';

/** REST for storages (docs/contract.md §2–§3): lifecycle actions without approvals, plus the declared integration-kind rule. */
export function storagesRoutes(app: FastifyInstance, services: Services): void {
  lifecycleRoutes(app, services, { ...declaredSurface(storageEntity, storageAggregate, storageListSpec), ...withIntegrationKinds(services, storageEntity, entityInput(storageEntity)) });
}
