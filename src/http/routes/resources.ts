import type { FastifyInstance } from 'fastify';
import { resourceEntity } from '../../model/resource.js';
import type { Services } from '../../services.js';
import { declaredSurface } from './catalog.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { awaitingDecisionOf } from '../../read/entity-access.js';
import { contentRange, parseListQuery } from '../../read/list-query.js';

/**
 * What resources add to their declared REST surface (docs/contract.md §2, §6; the writes are
 * src/edge/writes/resources.ts, where owners, approvers and runners are told apart).
 */
export function approvalsRoutes(app: FastifyInstance, services: Services): void {
  const surface = declaredSurface(resourceEntity);
  const resourceListSpec = surface.listSpec;

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
