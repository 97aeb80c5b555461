import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageRoot, selfOnlyPolicy } from '../edge/built-pages.js';

/** Vite writes this into the built index.html (`html.cspNonce`); each answer replaces it with a fresh nonce. */
export const CSP_NONCE_PLACEHOLDER = '__IL_CSP_NONCE__';

/** What `/` answers when the UI was not built (`npm run build` was not run). */
export const UI_NOT_BUILT =
  'infraledger: the web UI is not built. Run `npm run build` (or `npm start`, which builds first); the API is under /api.\n';

/** Where the web UI's built files are. */
export interface WebUiOptions {
  /** The built UI (index.html, assets/); default `dist/web` under the package root. */
  readonly root?: string;
}

/**
 * The UI's policy: everything from the service itself. Styles are injected at run time (emotion), so
 * they carry the page's nonce rather than opening `'unsafe-inline'`.
 */
export const contentSecurityPolicy = (nonce: string): string => selfOnlyPolicy({ 'style-src': `'nonce-${nonce}'`, 'img-src': 'data:' });

/** Paths the SPA never owns: their 404s stay problem details. */
const isApiPath = (url: string): boolean => /^\/api(?:[/?#]|$)/.test(url);

const acceptsHtml = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('text/html');

// One warning per process, not per app instance (integration tests build many apps).
let warnedMissing = false;

/**
 * Serves the web UI built by Vite: hashed assets (precompressed) with immutable caching, `index.html` (no-store, with a
 * Content-Security-Policy) for `/` and for any other non-/api GET that accepts HTML, so deep links
 * of the single-page app load. Every route here is public: the UI signs in through the API.
 */
export async function webUi(app: FastifyInstance, options: WebUiOptions = {}): Promise<void> {
  const root = options.root ?? path.join(packageRoot(), 'dist', 'web');
  const indexFile = path.join(root, 'index.html');
  const index = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;
  const publicRoute = { config: { public: true } } as const;

  if (index === undefined) {
    if (!warnedMissing) app.log.warn({ root }, 'the web UI is not built (no index.html): / answers a plain message; run npm run build');
    warnedMissing = true;
  } else {
    // @fastify/static's routes carry no config of ours: mark them public here (this context only).
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per built file (no wildcard of its own), so the SPA fallback below owns the rest.
      wildcard: false,
      index: false,
      // The build writes `<file>.br` and `<file>.gz` beside each text asset (web/precompress.ts):
      // sent as they are to clients that accept them (Content-Encoding, Vary), never served by name.
      preCompressed: true,
      globIgnore: ['index.html', '**/*.br', '**/*.gz'],
      decorateReply: false,
      cacheControl: false,
      setHeaders(response, file) {
        // Vite puts content-hashed names under assets/: they never change, so they never expire.
        const hashed = path.relative(root, file).split(path.sep)[0] === 'assets';
        response.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        response.setHeader('X-Content-Type-Options', 'nosniff');
        // The body depends on Accept-Encoding (precompressed variants): caches must key on it.
        response.setHeader('Vary', 'Accept-Encoding');
      },
    });
  }

  const notFound = (reply: FastifyReply): FastifyReply => {
    reply.callNotFound();
    return reply;
  };
  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (isApiPath(request.url)) return notFound(reply);
    const isRoot = request.url.split('?')[0] === '/';
    if (!isRoot && !acceptsHtml(request)) return notFound(reply);
    if (index === undefined) {
      return reply.status(503).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(UI_NOT_BUILT);
    }
    const nonce = randomBytes(16).toString('base64');
    // Never cached: each answer carries a fresh nonce, and a new release must load its new asset names.
    return reply
      .header('Cache-Control', 'no-store')
      .header('Content-Security-Policy', contentSecurityPolicy(nonce))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(index.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  };
  app.get('/', publicRoute, page);
  app.get('/*', publicRoute, page);
}
