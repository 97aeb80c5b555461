import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { sourceCodeEntity } from '../../model/source-code.js';
import { sourceCodeListSpec } from '../../read/list-specs/source-codes.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/**
 * REST for source codes (docs/contract.md §2–§3): `/api/source_codes`. Reads from the declaration; writes are the shared operations
 * (src/edge/writes).
 */
export function sourceCodesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(sourceCodeEntity, sourceCodeListSpec), writesOf(services).source_code);
}
