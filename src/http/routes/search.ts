import type { FastifyInstance } from 'fastify';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { parseSearch, toSearchHitView } from '../../edge/search.js';
import { DECLARED_ENTITIES } from '../../model/catalog.js';
import { searchCatalog } from '../../read/search.js';
import type { Services } from '../../services.js';
import { validationError } from '../../errors.js';

/** A JSON-encoded query parameter (as the lists take `filter`, `sort` and `range`), or a 400 naming it. */
function decoded(value: unknown, name: string): unknown {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw validationError(`invalid search: ${name}`, [{ field: name, message: 'must be given once' }]);
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw validationError(`invalid search: ${name}`, [{ field: name, message: 'must be JSON, e.g. ["template","resource"] or [0,20]' }]);
  }
}

/**
 * `GET /api/search?q=…&kinds=[…]&range=[offset,limit]` (docs/api/rest.md, "Search"): the entities of
 * every kind the caller may read whose name, identifier, searched fields, labels, description or id
 * hold the text, best first; `Content-Range: search 0-19/45`.
 */
export function searchRoutes(app: FastifyInstance, services: Services): void {
  const projections = DECLARED_ENTITIES.map((entity) => entity.plural);
  app.get('/search', async (request, reply) => {
    const principal = authorize(request);
    const raw = request.query as Record<string, unknown>;
    const unknown = Object.keys(raw).filter((key) => !['q', 'kinds', 'range'].includes(key));
    if (unknown.length > 0) {
      throw validationError(
        `invalid search: ${unknown.join(', ')}`,
        unknown.map((field) => ({ field, message: 'unknown parameter (q, kinds and range are)' })),
      );
    }
    const query = parseSearch(
      { q: raw.q, kinds: decoded(raw.kinds, 'kinds'), range: decoded(raw.range, 'range') },
      services.config.MAX_PAGE_SIZE,
    );
    await awaitMinPosition(request, services, projections);
    const { rows, total } = await searchCatalog(services.db, principal, query);
    const range = rows.length === 0 ? `search */${total}` : `search ${query.offset}-${query.offset + rows.length - 1}/${total}`;
    return reply.header('Content-Range', range).send(rows.map(toSearchHitView));
  });
}
