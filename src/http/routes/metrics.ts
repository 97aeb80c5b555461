import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { Services } from '../../services.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Compares the bearer token with METRICS_TOKEN in constant time (digests, so lengths do not leak either). */
function presentsToken(request: FastifyRequest, expected: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), digest(expected));
}

/** A route pattern fit for a label: one per built UI file would be one series per release. */
export function routeLabel(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route === undefined) return 'unmatched';
  return route.startsWith('/assets/') ? '/assets/*' : route;
}

/**
 * `GET /metrics`: Prometheus text format, behind `Authorization: Bearer <METRICS_TOKEN>` (a
 * scraper's token, not a user's: the service's own tokens are not accepted here). Without
 * METRICS_TOKEN it is off (404 saying how to turn it on), unless METRICS_PUBLIC=true opens it to
 * anyone who reaches the port. Every request's duration is observed by route pattern and status.
 */
export function metricsRoutes(app: FastifyInstance, services: Services): void {
  const { metrics } = services;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequestDuration.observe(
      { method: request.method, route: routeLabel(request), status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const token = services.config.METRICS_TOKEN;
  const open = services.config.METRICS_PUBLIC;
  app.get('/metrics', { config: { public: true } }, async (request, reply) => {
    if (token === undefined && !open) {
      throw new AppError(
        'NOT_FOUND',
        'metrics are off: set METRICS_TOKEN (scrapers send it as a bearer token), or METRICS_PUBLIC=true where only the scraper ' +
          'reaches this port',
      );
    }
    if (token !== undefined && !presentsToken(request, token)) {
      void reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new AppError('UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const { contentType, body } = await metrics.render();
    return reply.header('Cache-Control', 'no-store').type(contentType).send(body);
  });
}
