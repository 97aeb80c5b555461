import type { FastifyInstance } from 'fastify';
import { writesOfKind } from '../../edge/writes/registry.js';
import { DECLARED_ENTITIES } from '../../model/catalog.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { deliveryRoute } from './delivery.js';
import { approvalsRoutes } from './resources.js';
import { versionVariablesRoutes } from './source-code-versions.js';

/**
 * The REST surface of every declared kind (docs/contract.md §3, docs/adding-a-kind.md): list, get,
 * as-of and diff from the declaration, create, update, actions and delete through the kind's write
 * operations (src/edge/writes), permissions and grants. What a kind adds beside it is in EXTRA.
 */
const EXTRA: Readonly<Record<string, (app: FastifyInstance, services: Services) => void>> = {
  resource: approvalsRoutes,
  source_code_version: versionVariablesRoutes,
  webhook: (app, services) => deliveryRoute(app, services, { plural: 'webhooks', permission: 'webhook:read', label: 'webhook' }),
  // Holders of `integration:write` see every integration, owned ones included: no per-entity check is needed.
  integration: (app, services) =>
    deliveryRoute(app, services, {
      plural: 'integrations',
      permission: 'integration:write',
      label: 'notification integration',
      where: { column: 'integration_type', value: 'notification' },
    }),
};

/** Registers every declared kind's routes (under `/api`). */
export function declaredRoutes(app: FastifyInstance, services: Services): void {
  for (const entity of DECLARED_ENTITIES) {
    catalogRoutes(app, services, declaredSurface(entity), writesOfKind(services, entity.kind));
    EXTRA[entity.kind]?.(app, services);
  }
}
