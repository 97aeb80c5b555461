import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { webhookEntity } from '../../model/webhook.js';
import { webhookListSpec } from '../../read/list-specs/webhooks.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { z } from 'zod';
import { authorize } from '../../edge/authorize.js';
import { readDelivery } from '../../delivery/cursors.js';
import { notFound } from '../../errors.js';
import { canonicalUuid, parseInput } from '../../validation.js';

/** REST for webhooks (docs/contract.md §2–§3). Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function webhooksRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(webhookEntity, webhookListSpec), writesOf(services).webhook);

  // How its delivery stands (src/delivery/cursors.ts): not an entity's field, so a route of its own.
  app.get('/webhooks/:id/delivery', async (request) => {
    authorize(request, 'webhook:read');
    const { id } = parseInput(idParams, request.params, 'path');
    const webhook = await services.db
      .selectFrom('webhooks')
      .select('id')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!webhook) throw notFound('webhook not found');
    return readDelivery(services.pool, id);
  });
}

const idParams = z.object({ id: canonicalUuid });
