import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { secretEntity } from '../../model/secret.js';
import { secretListSpec } from '../../read/list-specs/secrets.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** REST for secrets (docs/contract.md §2–§3). Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function secretsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(secretEntity, secretListSpec), writesOf(services).secret);
}
