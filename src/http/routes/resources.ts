import type { FastifyInstance } from 'fastify';
import { writesOf } from '../../edge/writes/registry.js';
import { resourceEntity } from '../../model/resource.js';
import { resourceListSpec } from '../../read/list-specs/resources.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { awaitingDecisionOf } from '../../read/entity-access.js';
import { contentRange, parseListQuery } from '../../read/list-query.js';

/**
 * REST for resources (docs/contract.md §2, §6): reads from the declaration; writes are the shared
 * operations (src/edge/writes/resources.ts), where owners, approvers and runners are told apart.
 */
export function resourcesRoutes(app: FastifyInstance, services: Services): void {
  const surface = declaredSurface(resourceEntity, resourceListSpec);
  catalogRoutes(app, services, surface, writesOf(services).resource);

  // docs/contract.md §6, approvals by the owners: the requests waiting for the caller's decision
  // (resources' filters, sorts and ranges apply), filtered in the statement.
  app.get('/approvals', async (request, reply) => {
    const principal = authorize(request, 'resource:read');
    const query = parseListQuery(resourceListSpec, request.query as Record<string, unknown>, {
      maxPageSize: services.config.MAX_PAGE_SIZE,
      defaultPageSize: 100,
    });
    await awaitMinPosition(request, services, [surface.projection]);
    const { rows, total } = await surface.reader.list(
      services.db,
      resourceListSpec,
      query,
      awaitingDecisionOf(principal, resourceListSpec.table),
    );
    return reply.header('Content-Range', contentRange(resourceListSpec, query, rows.length, total)).send(rows);
  });
}
