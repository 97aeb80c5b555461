import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { webhookEntity } from '../../model/webhook.js';
import { webhookListSpec } from '../../read/list-specs/webhooks.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { deliveryRoute } from './delivery.js';

/** REST for webhooks (docs/contract.md §2–§3). Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function webhooksRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(webhookEntity, webhookListSpec), writesOf(services).webhook);

  deliveryRoute(app, services, { plural: 'webhooks', permission: 'webhook:read', label: 'webhook' });
}
