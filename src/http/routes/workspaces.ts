import type { FastifyInstance } from 'fastify';
import { workspaceAggregate } from '../../commands/workspace.js';
import { entityInput } from '../../edge/entity-input.js';
import { workspaceEntity } from '../../model/workspace.js';
import { workspaceListSpec } from '../../read/list-specs/workspaces.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { withIntegrationKinds } from './integration-kind.js';

/** REST for workspaces (docs/contract.md §2–§3): the catalog kit, plus the declared integration-kind rule. */
export function workspacesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, { ...declaredSurface(workspaceEntity, workspaceAggregate, workspaceListSpec), ...withIntegrationKinds(services, workspaceEntity, entityInput(workspaceEntity)) });
}
