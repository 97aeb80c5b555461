import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { sourceCodeVersionEntity } from '../../model/source-code-version.js';
import { sourceCodeVersionListSpec } from '../../read/list-specs/source-code-versions.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/**
 * REST for source code versions (docs/contract.md §2–§3): `/api/source_code_versions`. Reads from the declaration; writes are the shared
 * operations (src/edge/writes).
 */
export function sourceCodeVersionsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(sourceCodeVersionEntity, sourceCodeVersionListSpec), writesOf(services).source_code_version);
}
