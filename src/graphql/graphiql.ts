import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageRoot, selfOnlyPolicy } from '../edge/built-pages.js';

/** Where the page and its assets are served (the built `index.html` refers to `/api/graphql/assets/…`). */
const PAGE_PATH = '/api/graphql';
const ASSETS_PREFIX = `${PAGE_PATH}/assets/`;

/** The body of `GET /api/graphql` from a browser when `npm run build` has not built GraphiQL. */
export const GRAPHIQL_NOT_BUILT =
  'infraledger: GraphiQL is not built. Run `npm run build` (or `npm start`, which builds first). The GraphQL API itself works: POST ' +
  '/api/graphql.\n';

/**
 * The page's policy: scripts, styles, fonts and requests only from the service itself. GraphiQL's
 * fonts and icons are data: URLs inside its stylesheet; its editors style elements through the CSSOM,
 * which style-src does not govern, so neither 'unsafe-inline' nor 'unsafe-eval' is needed.
 */
export const GRAPHIQL_CSP = selfOnlyPolicy({ 'img-src': 'data:', 'font-src': 'data:' });

/** Where GraphiQL's built page is and how it is served. */
export interface GraphiqlOptions {
  /** The Vite build (index.html, assets/); default `dist/graphiql` under the package root. */
  readonly root?: string;
}

/** `dist/graphiql` under the package root, where `npm run build:graphiql` writes. */
export const defaultGraphiqlRoot = (): string => path.join(packageRoot(), 'dist', 'graphiql');

/** A browser opening the endpoint: it asks for HTML and sends no operation (`?query=` stays GraphQL over GET). */
function wantsPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (request.routeOptions.url !== PAGE_PATH) return false;
  if (!(request.headers.accept ?? '').includes('text/html')) return false;
  const query = request.query as Record<string, unknown> | undefined;
  return query?.query === undefined;
}

// One warning per process, not per app instance (integration tests build many apps).
let warnedMissing = false;

/**
 * GraphiQL at `GET /api/graphql` (docs/contract.md §4), fully offline: the page and its hashed assets come from
 * the Vite build in `root`. Call it on Mercurius' encapsulated scope *before* registering Mercurius:
 * its onRequest hook answers browsers on Mercurius' own route, ahead of the GraphQL handler. Every
 * route here is public; the page's requests carry the token the user types into the Headers tab.
 */
export async function registerGraphiql(scope: FastifyInstance, options: GraphiqlOptions = {}): Promise<void> {
  const root = options.root ?? defaultGraphiqlRoot();
  const indexFile = path.join(root, 'index.html');
  const index = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;

  // A callback hook: GraphQL's own requests pass without a promise; the page is answered here.
  scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!wantsPage(request)) return done();
    if (index === undefined) {
      void reply.status(503).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(GRAPHIQL_NOT_BUILT);
      return;
    }
    void reply
      .header('Cache-Control', 'no-store')
      .header('Content-Security-Policy', GRAPHIQL_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(index);
  });

  if (index === undefined) {
    if (!warnedMissing)
      scope.log.warn({ root }, 'GraphiQL is not built (no index.html): GET /api/graphql from a browser answers 503; run npm run build');
    warnedMissing = true;
    return;
  }

  await scope.register(async (assets) => {
    // @fastify/static's routes carry no config of ours: mark them public (this child context only).
    assets.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await assets.register(fastifyStatic, {
      root: path.join(root, 'assets'),
      prefix: ASSETS_PREFIX,
      index: false,
      // `<file>.br` / `<file>.gz` written by the build (web/precompress.ts), sent to clients that accept them.
      preCompressed: true,
      decorateReply: false,
      cacheControl: false,
      setHeaders(response) {
        // Vite names every file here by its content hash: a new build means new names.
        response.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        response.setHeader('X-Content-Type-Options', 'nosniff');
        response.setHeader('Vary', 'Accept-Encoding');
      },
    });
  });
}
