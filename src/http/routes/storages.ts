import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { storageEntity } from '../../model/storage.js';
import { storageListSpec } from '../../read/list-specs/storages.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/**
 * REST for storages (docs/contract.md §2–§3): lifecycle actions without approvals. Reads from the declaration; writes are the shared
 * operations (src/edge/writes).
 */
export function storagesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(storageEntity, storageListSpec), writesOf(services).storage);
}
