import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Kind, type DocumentNode, type GraphQLSchema } from 'graphql';
import mercurius from 'mercurius';
import { AppError } from '../errors.js';
import { NOT_AUTHENTICATED, setPrincipal } from '../http/authorize.js';
import { awaitMinPosition } from '../http/headers.js';
import { allProjections } from '../projections/registry.js';
import type { Services } from '../services.js';
import { formatErrors } from './errors.js';
import { registerGraphiql, type GraphiqlOptions } from './graphiql.js';
import { enforceDocumentSize, enforceLimits, type GraphLimits } from './limits.js';
import { isPublicDocument } from './operation.js';
import { buildResolvers, type GraphContext } from './resolvers.js';
import { DateTime, JSONScalar, UUID } from './scalars.js';
import { buildSchemaDocument } from './sdl.js';

export const GRAPHQL_PATH = '/api/graphql';

const PROJECTIONS = allProjections.map((projection) => projection.name);

/**
 * SPEC §4: a non-public operation needs a valid bearer token (the REST authenticator: service tokens,
 * personal access tokens, portal tokens). Public operations ignore a bad token rather than failing.
 */
async function authenticate(services: Services, context: GraphContext, document: DocumentNode): Promise<void> {
  const header = context.request.headers.authorization;
  const isPublic = isPublicDocument(document);
  if (header === undefined || header.trim() === '') {
    if (isPublic) return;
    throw new AppError('UNAUTHENTICATED', NOT_AUTHENTICATED);
  }
  try {
    context.principal = await services.authenticator.authenticate(header, services.now());
    setPrincipal(context.request, context.principal);
  } catch (error) {
    if (isPublic) return;
    if (error instanceof AppError && error.code === 'UNAUTHENTICATED') {
      throw new AppError('UNAUTHENTICATED', `Not authenticated: ${error.message}. Please provide a valid bearer token in the Authorization header.`);
    }
    throw error;
  }
}

export interface GraphqlOptions {
  /** Where the built GraphiQL lives (tests point it at a fixture); default dist/graphiql. */
  readonly graphiql?: GraphiqlOptions;
}

/**
 * `POST /api/graphql` (and `GET ?query=`): Mercurius on the shared services. Registered in its own
 * encapsulated scope because Mercurius installs an error handler, which must not replace the REST
 * problem-details handler. Parsed and validated documents are cached by Mercurius (LRU of 1,024).
 * A browser's `GET` gets GraphiQL instead (./graphiql.ts).
 */
export async function registerGraphql(app: FastifyInstance, services: Services, options: GraphqlOptions = {}): Promise<void> {
  const limits: GraphLimits = {
    maxDepth: services.config.GRAPHQL_MAX_DEPTH,
    maxCost: services.config.GRAPHQL_MAX_COST,
    maxAliases: services.config.GRAPHQL_MAX_ALIASES,
    maxDocumentBytes: services.config.GRAPHQL_MAX_DOCUMENT_BYTES,
    defaultPageSize: Math.min(100, services.config.MAX_PAGE_SIZE),
  };
  await app.register(async (scope) => {
    // Before Mercurius, so that its onRequest hook sits on Mercurius' GET route.
    await registerGraphiql(scope, options.graphiql);
    await scope.register(mercurius, {
      schema: buildSchemaDocument(),
      resolvers: { ...buildResolvers(), UUID, JSON: JSONScalar, DateTime } as never,
      path: GRAPHQL_PATH,
      graphiql: false,
      allowBatchedQueries: false,
      // graphql-jit compiles a document from its second run on: 10-20% less CPU per request on the
      // bench's queries (bench/graphql, README "GraphQL throughput"); same answers and errors.
      jit: 1,
      context: (request: FastifyRequest): Partial<GraphContext> => ({ services, request }),
      errorFormatter: formatErrors,
      // The REST bearer hook skips the route; authentication happens per operation below.
      additionalRouteOptions: { config: { public: true } },
    });
    scope.graphql.addHook('preParsing', (_schema: GraphQLSchema, source: string) => {
      enforceDocumentSize(source, limits);
      return Promise.resolve();
    });
    // When the text does not parse, Mercurius tries it as a JSON-encoded AST; anything but a document
    // would then crash validation, so it is refused here as the client's error (uncached documents only).
    scope.graphql.addHook('preValidation', (_schema: GraphQLSchema, document: DocumentNode) => {
      if ((document as { kind?: unknown } | null)?.kind !== Kind.DOCUMENT) {
        throw new AppError('VALIDATION', 'query is not a GraphQL document', { errors: [{ field: 'query', message: 'must be a GraphQL document' }] });
      }
      return Promise.resolve();
    });
    scope.graphql.addHook('preExecution', async (schema, document, context, variables) => {
      // Mercurius passes undefined when the request has no variables, whatever its types say; a spread copes.
      enforceLimits(schema, document, { ...variables }, limits);
      const graphContext = context as unknown as GraphContext & { reply: FastifyReply };
      await authenticate(services, graphContext, document);
      await awaitMinPosition(graphContext.request, services, PROJECTIONS);
    });
  });
}
