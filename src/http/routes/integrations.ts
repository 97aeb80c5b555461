import type { FastifyInstance } from 'fastify';
import { integrationAggregate } from '../../commands/integration.js';
import { entityInput } from '../../edge/entity-input.js';
import { integrationEntity } from '../../model/integration.js';
import { integrationListSpec } from '../../read/list-specs/integrations.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** The integrations REST surface: the catalog kit's routes with the declaration's request bodies. */
export function integrationRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, { ...declaredSurface(integrationEntity, integrationAggregate, integrationListSpec), ...entityInput(integrationEntity) });
}
