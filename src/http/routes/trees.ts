import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { readTree } from '../../edge/trees.js';
import { TREE_KINDS, withUpstreamShape, type TreeKind } from '../../read/trees.js';
import type { Services } from '../../services.js';

/**
 * `GET /api/{resources|templates}/{id}/tree/{children|parents}?depth=` (docs/api/rest.md,
 * "Relationships"): the entity's relatives, nested, to a depth (default 5, at most 20); beside our
 * members, the root's in the upstream project's shape (its route, same path).
 */
export function treeRoutes(app: FastifyInstance, services: Services): void {
  for (const kind of Object.keys(TREE_KINDS) as TreeKind[]) {
    const { table } = TREE_KINDS[kind];
    app.get(`/${table}/:id/tree/:direction`, async (request) => {
      const principal = authorize(request);
      await awaitMinPosition(request, services, [table]);
      const query = request.query as Record<string, unknown>;
      const tree = await readTree(
        services,
        principal,
        kind,
        { ...(request.params as Record<string, unknown>), depth: query.depth },
        'request',
      );
      // The root's own members beside ours, in the upstream's shape, for its clients (Backstage).
      return withUpstreamShape(tree, randomUUID, 'rest');
    });
  }
}
