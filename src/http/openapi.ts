import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { compressDocsAssets } from './docs-compression.js';
import { DOCS_THEME } from './docs-theme.js';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3, OpenAPIV3_1 } from 'openapi-types';
import { selfOnlyPolicy } from '../edge/built-pages.js';
import type { RouteAuthConfig } from './auth-hook.js';
import { catalogPaths } from './openapi/catalog-paths.js';
import { components, jsonResponse, type OpenApiDocument, type Paths } from './openapi/components.js';
import { graphqlPaths } from './openapi/graphql-paths.js';
import { identityPaths } from './openapi/identity-paths.js';
import { runPaths } from './openapi/run-paths.js';
import { searchPaths } from './openapi/search-paths.js';
import { favoritePaths } from './openapi/favorite-paths.js';
import { treePaths, treeSchemas } from './openapi/tree-paths.js';
import { versionVariablesPaths } from './openapi/version-variables-paths.js';
import { webhookPaths } from './openapi/webhook-paths.js';
import { mcpPaths } from './openapi/mcp-paths.js';

/** Version of the REST contract the document describes. */
export const API_VERSION = '0.1.0';

/** Where the document and the browsable docs are served. */
export const OPENAPI_PATH = '/api/openapi.json';
/** Where the browsable API docs are served. */
export const DOCS_PREFIX = '/api/docs';

const PUBLIC: OpenAPIV3_1.SecurityRequirementObject[] = [];

/**
 * The one inline style Swagger UI applies: the `<style>` inside its SVG logo (`.logo_small_svg__cls-2{fill:#fff}…`),
 * allowed by its hash (the e2e test in test/e2e/graphiql.e2e.spec.ts fails if an upgrade of
 * @fastify/swagger-ui changes it: take the new hash from the browser's console message).
 */
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/** The Content-Security-Policy of every `/api/docs` answer: the service's own origin only, never framed. */
export const API_DOCS_CSP = selfOnlyPolicy({ 'img-src': 'data:', 'font-src': 'data:', 'style-src': SWAGGER_LOGO_STYLE });

/** Liveness, readiness and the document itself: public, outside the entity tags. */
function servicePaths(): Paths {
  const tags = ['Service'];
  return {
    '/healthz': {
      get: {
        tags,
        operationId: 'healthz',
        summary: 'The process answers',
        security: PUBLIC,
        responses: { '200': jsonResponse('Alive.', { type: 'object' }) },
      },
    },
    '/readyz': {
      get: {
        tags,
        operationId: 'readyz',
        summary: 'The stores answer and every projection is near the head',
        security: PUBLIC,
        responses: {
          '200': jsonResponse('Ready.', { type: 'object' }),
          '503': jsonResponse('Not ready: `problems` says why.', { type: 'object' }),
        },
      },
    },
    '/metrics': {
      get: {
        tags,
        operationId: 'metrics',
        summary: 'Prometheus metrics (text format); needs Authorization: Bearer <METRICS_TOKEN> when that is set',
        security: PUBLIC,
        responses: {
          '200': { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': { description: 'METRICS_TOKEN is set and was not presented.' },
        },
      },
    },
    [OPENAPI_PATH]: {
      get: {
        tags,
        operationId: 'openapi',
        summary: 'This OpenAPI document',
        security: PUBLIC,
        responses: { '200': jsonResponse('OpenAPI 3.1.', { type: 'object' }) },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the REST API (docs/contract.md §3). Request bodies are converted from the zod
 * schemas the routes validate with, so the document cannot drift from the validation. Every
 * operation needs a bearer token unless it says `security: []`.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'infraledger',
      version: API_VERSION,
      description: [
        'Event-sourced infrastructure catalog. Lists take JSON-encoded `filter`, `sort` and `range` and answer `Content-Range`;',
        'single entities carry an `ETag` revision that `If-Match` checks (412 on mismatch); writes answer with the entity as the read ' +
          'model shows it.',
        'Errors are RFC 9457 problem details (`application/problem+json`). GraphQL lives at `/api/graphql`.',
      ].join(' '),
    },
    // Relative: "Try it out" calls the address the page was opened at (a BASE_URL of another host name,
    // or a proxy's, would send every call elsewhere and fail on CORS).
    servers: [{ url: '/', description: 'this service, at the address this document was read from' }],
    security: [{ bearerAuth: [] }],
    paths: {
      ...servicePaths(),
      ...identityPaths(),
      ...catalogPaths(),
      ...runPaths(),
      ...searchPaths(),
      ...favoritePaths(),
      ...treePaths(),
      ...versionVariablesPaths(),
      ...webhookPaths(),
      ...mcpPaths(),
      ...graphqlPaths(),
    },
    components: { ...components(), schemas: { ...components().schemas, ...treeSchemas } },
  };
}

/**
 * Serves the document at `GET /api/openapi.json` and Swagger UI at `/api/docs` (assets from
 * node_modules, nothing fetched from the internet). All of them are public: the swagger-ui plugin
 * takes no route config, so an `onRoute` hook of the scope it is registered in marks its routes.
 */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  const document = buildOpenApiDocument();
  const publicRoute: RouteAuthConfig = { public: true };

  app.get(OPENAPI_PATH, { config: publicRoute }, (_request, reply) => reply.header('Cache-Control', 'no-cache').send(document));

  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, ...publicRoute };
    });
    // Static mode serves the document as is; the plugin's types only know OpenAPI 2 and 3.0 documents.
    const staticDocument = document as OpenAPIV3.Document;
    await docs.register(fastifySwagger, { mode: 'static', specification: { document: staticDocument } });
    // Swagger UI's page has no inline script or style (its csp.json lists no hashes); its icons are data: URLs.
    // frame-ancestors 'none' (and X-Frame-Options for older browsers): the page cannot be framed.
    docs.addHook('onSend', async (_request, reply) => {
      void reply.header('X-Frame-Options', 'DENY');
    });
    compressDocsAssets(docs, DOCS_PREFIX);
    await docs.register(fastifySwaggerUi, {
      routePrefix: DOCS_PREFIX,
      staticCSP: API_DOCS_CSP,
      // No badge from validator.swagger.io: the docs must work offline.
      validatorUrl: false,
      // BaseLayout: no top bar (docs-theme.ts); no deep links, whose anchors sit inside each operation's button.
      uiConfig: { layout: 'BaseLayout', deepLinking: false, persistAuthorization: false, displayRequestDuration: true },
      theme: DOCS_THEME,
    });
  });
}
