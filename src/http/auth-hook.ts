import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { AppError } from '../errors.js';
import { NOT_AUTHENTICATED, setPrincipal } from '../edge/authorize.js';

/** Route options: `config: { public: true }` needs no token; `optionalAuth` still reads one if sent. */
export interface RouteAuthConfig {
  readonly public?: boolean;
  readonly optionalAuth?: boolean;
}

declare module 'fastify' {
  // Typed route config, so a plugin's route options (e.g. Mercurius' additionalRouteOptions) can say it too.
  interface FastifyContextConfig {
    readonly public?: boolean;
    readonly optionalAuth?: boolean;
  }
}

/**
 * Bearer authentication for every route that is not marked public: the caller is resolved once per
 * request (service token, personal access token) and read with `authorize()` by the handlers.
 */
export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator, now: () => Date): void {
  // A callback hook: public routes (GraphQL authenticates per operation) pass without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404) return done();
    const config = request.routeOptions.config as RouteAuthConfig;
    const header = request.headers.authorization;
    // A public route reads a caller only where it is optional and one is named; failing to is no refusal.
    if (config.public && (!config.optionalAuth || !header)) return done();
    if (header === undefined || header.trim() === '') return done(new AppError('UNAUTHENTICATED', NOT_AUTHENTICATED));
    authenticator.authenticate(header, now()).then(
      (principal) => {
        setPrincipal(request, principal);
        done();
      },
      (error: unknown) => done(config.public ? undefined : (error as Error)),
    );
  });
}
