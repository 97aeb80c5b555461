import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import type { Services } from '../services.js';
import { sendProblem } from './problem.js';
import { registerAuthentication } from './auth-hook.js';
import { awaitsConfirmation, confirmByLookup } from '../edge/recalled-writes.js';
import { registerIdempotency } from './idempotency-hook.js';
import { registerInputGate } from './input-gate.js';
import { registerReadRouting } from './read-routing.js';
import { registerSecurityHeaders } from './security-headers.js';
import { registerApiDocs } from './openapi.js';
import { registerGraphql } from '../graphql/plugin.js';
import { auditLogRoutes } from './routes/audit-log.js';
import { authProviderRoutes } from './routes/auth-providers.js';
import { authRoutes } from './routes/auth.js';
import { ssoRoutes } from './routes/sso.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { activeTracing } from '../telemetry.js';
import { runRoutes } from './routes/runs.js';
import { mcpRoutes } from './routes/mcp.js';
import { personalAccessTokenRoutes } from './routes/personal-access-tokens.js';
import { userRoutes } from './routes/users.js';
import { searchRoutes } from './routes/search.js';
import { favoriteRoutes } from './routes/favorites.js';
import { treeRoutes } from './routes/trees.js';
import { webUi } from './web-ui.js';
import { clientErrorHandler } from './client-errors.js';
import { declaredRoutes } from './routes/declared.js';
import { requestLoggerFactory } from './request-logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Composes the HTTP service from already-open services. `main` only adds listening. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  // Typed as Fastify's logger so the instance keeps Fastify's default generics (a pino Logger is one).
  const logger: FastifyBaseLogger = services.log;
  const app = Fastify({
    loggerInstance: logger,
    childLoggerFactory: requestLoggerFactory(),
    // A caller's request id is kept (for tracing across services) when it is well formed.
    genReqId: (request) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    // request.ip is the client's address behind the proxies TRUSTED_PROXIES names (sign-in limits, logs).
    trustProxy:
      services.config.TRUSTED_PROXIES !== undefined && services.config.TRUSTED_PROXIES.length > 0 ? services.config.TRUSTED_PROXIES : false,
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: clientErrorHandler(logger),
  });
  // Tracing's plugin first, so it sees every route and hook registered after it.
  const tracing = activeTracing();
  if (tracing) await app.register(tracing.fastifyPlugin);
  registerSecurityHeaders(app, services.config.BASE_URL);
  registerInputGate(app);
  // A recalled writer's request that failed before its write ran (a body that does not parse, say)
  // reads the session first, as any other request does before its body (src/edge/recalled-writes.ts):
  // a refused caller gets the refusal; an outage during the lookup, its 503.
  app.setErrorHandler(async (error, request, reply) => {
    if (awaitsConfirmation(request)) {
      try {
        await confirmByLookup(request, (header) => services.authenticator.authenticate(header, services.now()));
      } catch (unconfirmed) {
        return sendProblem(unconfirmed, request, reply);
      }
    }
    return sendProblem(error, request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(notFound(`no route for ${request.method} ${request.url.split('?')[0] ?? ''}`), request, reply),
  );

  registerAuthentication(app, services.authenticator, services.now, { recallWriters: services.store.checksConditions });
  // After authentication (on the primary), before any route: reads may go to a hot standby.
  registerReadRouting(app, services);
  await registerApiDocs(app);
  healthRoutes(app, services);
  metricsRoutes(app, services);
  await registerGraphql(app, services);
  await app.register(
    (api, _options, done) => {
      registerIdempotency(api, services);
      authRoutes(api, services, services.signIn);
      ssoRoutes(api, services);
      authProviderRoutes(api, services);
      userRoutes(api, services);
      personalAccessTokenRoutes(api, services);
      auditLogRoutes(api, services);
      declaredRoutes(api, services);
      runRoutes(api, services);
      searchRoutes(api, services);
      favoriteRoutes(api, services);
      treeRoutes(api, services);
      mcpRoutes(api, services.config.BASE_URL);
      done();
    },
    { prefix: '/api' },
  );
  await app.register(webUi);
  return app;
}
