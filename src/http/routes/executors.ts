import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { executorEntity } from '../../model/executor.js';
import { executorListSpec } from '../../read/list-specs/executors.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/**
 * REST for executors (docs/contract.md §2–§3): lifecycle actions without approvals. Reads from the declaration; writes are the shared
 * operations (src/edge/writes).
 */
export function executorsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(executorEntity, executorListSpec), writesOf(services).executor);
}
