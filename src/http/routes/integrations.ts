import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { integrationEntity } from '../../model/integration.js';
import { integrationListSpec } from '../../read/list-specs/integrations.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { deliveryRoute } from './delivery.js';

/** The integrations REST surface. Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function integrationRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(integrationEntity, integrationListSpec), writesOf(services).integration);

  // Holders of `integration:write` see every integration, owned ones included: no per-entity check is needed.
  deliveryRoute(app, services, {
    plural: 'integrations',
    permission: 'integration:write',
    label: 'notification integration',
    where: { column: 'integration_type', value: 'notification' },
  });
}
