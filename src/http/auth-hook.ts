import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { AppError } from '../errors.js';
import { NOT_AUTHENTICATED, setPrincipal } from '../edge/authorize.js';
import { startRecalledWrite } from '../edge/recalled-writes.js';

/**
 * Route options: `config: { public: true }` needs no token; `optionalAuth` still reads one if sent;
 * `recallsWriter` may start from a recalled caller, confirmed by the write (src/edge/recalled-writes.ts).
 */
export interface RouteAuthConfig {
  readonly public?: boolean;
  readonly optionalAuth?: boolean;
  readonly recallsWriter?: boolean;
}

declare module 'fastify' {
  // Typed route config, so a plugin's route options (e.g. Mercurius' additionalRouteOptions) can say it too.
  interface FastifyContextConfig {
    readonly public?: boolean;
    readonly optionalAuth?: boolean;
    readonly recallsWriter?: boolean;
  }
}

/**
 * Bearer authentication for every route that is not marked public: the caller is resolved once per
 * request (service token, personal access token) and read with `authorize()` by the handlers.
 *
 * A route marked `recallsWriter` (the catalog's creates, updates and deletes) starts instead from the
 * caller as this replica last read their session, without a statement, when `recallWriters` (the
 * event store checks append conditions) and the request claims no Idempotency-Key (a claim is a
 * write of its own, made before the command). The write's append then checks the session, and the
 * route confirms the caller before it answers (src/edge/recalled-writes.ts).
 */
export function registerAuthentication(
  app: FastifyInstance,
  authenticator: Authenticator,
  now: () => Date,
  options: { readonly recallWriters: boolean },
): void {
  // A callback hook: public routes (GraphQL authenticates per operation) pass without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404) return done();
    const config = request.routeOptions.config as RouteAuthConfig;
    const header = request.headers.authorization;
    // A public route reads a caller only where it is optional and one is named; failing to is no refusal.
    if (config.public && (!config.optionalAuth || !header)) return done();
    if (header === undefined || header.trim() === '') return done(new AppError('UNAUTHENTICATED', NOT_AUTHENTICATED));
    const authenticate = (): void => {
      authenticator.authenticate(header, now()).then(
        (principal) => {
          setPrincipal(request, principal);
          done();
        },
        (error: unknown) => done(config.public ? undefined : (error as Error)),
      );
    };
    if (!config.recallsWriter || !options.recallWriters || request.headers['idempotency-key'] !== undefined) return authenticate();
    authenticator.recallWriter(header, now()).then((recalled) => {
      if (!recalled) return authenticate();
      startRecalledWrite(request, header, recalled);
      done();
    }, done);
  });
}
