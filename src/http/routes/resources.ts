import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { resourceEntity } from '../../model/resource.js';
import { resourceListSpec } from '../../read/list-specs/resources.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/**
 * REST for resources (docs/contract.md §2, §6): reads from the declaration; writes are the shared
 * operations (src/edge/writes/resources.ts), where owners, approvers and runners are told apart.
 */
export function resourcesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(resourceEntity, resourceListSpec), writesOf(services).resource);
}
