import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { workspaceEntity } from '../../model/workspace.js';
import { workspaceListSpec } from '../../read/list-specs/workspaces.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** REST for workspaces (docs/contract.md §2–§3). Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function workspacesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(workspaceEntity, workspaceListSpec), writesOf(services).workspace);
}
