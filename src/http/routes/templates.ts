import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { templateEntity } from '../../model/template.js';
import { templateListSpec } from '../../read/list-specs/templates.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** The templates REST surface. Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function templateRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(templateEntity, templateListSpec), writesOf(services).template);
}
