import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { readDelivery } from '../../delivery/cursors.js';
import { authorize } from '../../edge/authorize.js';
import { writesOf } from '../../edge/writes/registry.js';
import { notFound } from '../../errors.js';
import { integrationEntity } from '../../model/integration.js';
import { integrationListSpec } from '../../read/list-specs/integrations.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** The integrations REST surface. Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function integrationRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(integrationEntity, integrationListSpec), writesOf(services).integration);

  // How a notification integration's delivery stands (docs/contract.md §11). Holders of
  // `integration:write` see every integration, owned ones included, so no per-entity check is needed.
  app.get('/integrations/:id/delivery', async (request) => {
    authorize(request, 'integration:write');
    const { id } = parseInput(idParams, request.params, 'path');
    const integration = await services.db
      .selectFrom('integrations')
      .select('id')
      .where('id', '=', id)
      .where('integration_type', '=', 'notification')
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!integration) throw notFound('notification integration not found');
    return readDelivery(services.pool, id);
  });
}

const idParams = z.object({ id: canonicalUuid });
