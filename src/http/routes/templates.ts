import type { FastifyInstance } from 'fastify';
import { templateAggregate } from '../../commands/template.js';
import { entityInput } from '../../edge/entity-input.js';
import { templateEntity } from '../../model/template.js';
import { templateListSpec } from '../../read/list-specs/templates.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** The templates REST surface: the catalog kit's routes with the declaration's request bodies. */
export function templateRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, { ...declaredSurface(templateEntity, templateAggregate, templateListSpec), ...entityInput(templateEntity) });
}
