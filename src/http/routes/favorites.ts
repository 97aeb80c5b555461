import type { FastifyInstance, FastifyReply } from 'fastify';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { FAVORITES_PROJECTION, favoriteWrites } from '../../edge/writes/favorites.js';
import type { Written } from '../../edge/writes/write.js';
import { listFavorites } from '../../read/favorites.js';
import type { Services } from '../../services.js';
import { restCall } from './catalog.js';

/**
 * Favorites (docs/api/rest.md, "Favorites"): `GET /api/favorites` lists the caller's, newest first;
 * `PUT /api/favorites/{entityType}/{id}` stars an entity, `DELETE` unstars it (both 204, idempotent).
 */
export function favoriteRoutes(app: FastifyInstance, services: Services): void {
  const writes = favoriteWrites(services);
  const answered = (reply: FastifyReply, written: Written): FastifyReply => {
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return reply.status(204).send();
  };
  app.get('/favorites', async (request) => {
    const principal = authorize(request);
    await awaitMinPosition(request, services, [FAVORITES_PROJECTION]);
    return listFavorites(services.db, principal);
  });
  app.put('/favorites/:entityType/:id', async (request, reply) => answered(reply, await writes.add(restCall(request), request.params)));
  app.delete('/favorites/:entityType/:id', async (request, reply) =>
    answered(reply, await writes.remove(restCall(request), request.params)),
  );
}
