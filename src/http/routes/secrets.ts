import type { FastifyInstance } from 'fastify';
import { secretAggregate } from '../../commands/secret.js';
import { entityInput } from '../../edge/entity-input.js';
import { secretEntity } from '../../model/secret.js';
import { secretListSpec } from '../../read/list-specs/secrets.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { withIntegrationKinds } from './integration-kind.js';

/** REST for secrets (docs/contract.md §2–§3): the catalog kit, plus the declared integration-kind rule. */
export function secretsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, { ...declaredSurface(secretEntity, secretAggregate, secretListSpec), ...withIntegrationKinds(services, secretEntity, entityInput(secretEntity)) });
}
