import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { teamEntity } from '../../model/team.js';
import { teamListSpec } from '../../read/list-specs/teams.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

/** REST for teams (docs/contract.md §2–§3). Reads from the declaration; writes are the shared operations (src/edge/writes). */
export function teamsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, declaredSurface(teamEntity, teamListSpec), writesOf(services).team);
}
