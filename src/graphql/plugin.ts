import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, Kind, OperationTypeNode, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import fastifyWebsocket from '@fastify/websocket';
import mercurius from 'mercurius';
import { AppError } from '../errors.js';
import { checkGraphqlSource } from '../input-gate.js';
import { NOT_AUTHENTICATED, principalOf, setPrincipal } from '../edge/authorize.js';
import { awaitMinPosition } from '../edge/headers.js';
import { allProjections } from '../projections/registry.js';
import type { Services } from '../services.js';
import { formatErrors, subscriptionError } from './errors.js';
import { guardSockets } from './live-sockets.js';
import { registerGraphiql, type GraphiqlOptions } from './graphiql.js';
import {
  enforceDocumentSize,
  enforceLimits,
  enforcePublicLimits,
  maxResponseBytes,
  refuseInvalidDocument,
  tooLargeAnswer,
  type GraphLimits,
} from './limits.js';
import { isIntrospectionDocument, isPublicDocument } from './operation.js';
import { mayBeUpstreamDocument, translateUpstreamDocument } from './upstream-documents.js';
import { registerIntrospectionCache } from './introspection-cache.js';
import { nestsVariables } from './nested-variables.js';
import { buildResolvers, loadUserById, type GraphContext } from './resolvers.js';
import { buildSubscriptions } from './subscriptions.js';
import { DateTime, JSONScalar, UUID } from './scalars.js';
import { rerun, settle, speculate, type Operation } from './speculation.js';
import { refuseInvalidVariables } from './variables.js';
import { registerRequestShape } from './request-shape.js';
import { buildSchemaDocument } from './sdl.js';
import { countingErrors, noteOperation, observeOperations } from './metrics.js';

/** Where the GraphQL endpoint answers. */
export const GRAPHQL_PATH = '/api/graphql';

const PROJECTIONS = allProjections.map((projection) => projection.name);

/** docs/contract.md §4's refusal of a bad token, naming the reason the authenticator gave. */
const notAuthenticated = (reason: AppError): AppError =>
  new AppError('UNAUTHENTICATED', `Not authenticated: ${reason.message}. Please provide a valid bearer token in the Authorization header.`);

/** Only reads are answered for a recalled caller: a mutation's effects could not be taken back. */
const onlyQueries = (document: DocumentNode): boolean =>
  document.definitions.every(
    (definition) => definition.kind !== Kind.OPERATION_DEFINITION || definition.operation === OperationTypeNode.QUERY,
  );

/**
 * docs/contract.md §4: a non-public operation needs a valid bearer token (the REST authenticator: service tokens,
 * personal access tokens, portal tokens). Public operations ignore a bad token rather than failing.
 * A query whose service-token session this replica has read before starts with the caller as it
 * was, confirmed by its first statement or after execution (./speculation.ts).
 */
async function authenticate(services: Services, context: GraphContext, document: DocumentNode): Promise<void> {
  const header = context.request.headers.authorization;
  const isPublic = isPublicDocument(document);
  if (header === undefined || header.trim() === '') {
    if (isPublic) return;
    throw new AppError('UNAUTHENTICATED', NOT_AUTHENTICATED);
  }
  const recalled = isPublic || !onlyQueries(document) ? undefined : await services.authenticator.recall(header, services.now());
  if (recalled) {
    context.principal = recalled.principal;
    context.speculation = speculate(header, recalled);
    setPrincipal(context.request, context.principal);
    return;
  }
  try {
    context.principal = await services.authenticator.authenticate(header, services.now());
    setPrincipal(context.request, context.principal);
  } catch (error) {
    if (isPublic) return;
    if (error instanceof AppError && error.code === 'UNAUTHENTICATED') throw notAuthenticated(error);
    throw error;
  }
}

type HookContext = GraphContext & { reply: FastifyReply; operation?: Operation };

/** The context Mercurius hands its hooks, as this plugin's `context` function built it (its type is Mercurius' own). */
const hookContextOf = (context: unknown): HookContext => context as HookContext;

/** The operation's name as the request gave it (POST body or GET query string), for running it again. */
function operationNameOf(request: FastifyRequest): string | undefined {
  const source = (request.method === 'GET' ? request.query : request.body) as { operationName?: unknown } | undefined;
  return typeof source?.operationName === 'string' ? source.operationName : undefined;
}

/** Replaces what execution produced (onResolution runs after Mercurius formatted it). */
function replaceExecution(execution: ExecutionResult, result: ExecutionResult, context: HookContext): void {
  const formatted = result.errors ? formatErrors(result, context) : undefined;
  (execution as { data?: unknown }).data = formatted ? formatted.response.data : result.data;
  (execution as { errors?: unknown }).errors = formatted?.response.errors;
  context.reply.code(formatted?.statusCode ?? 200);
}

/**
 * Before a recalled caller's answer leaves: confirmed → as executed; otherwise the session is read
 * now, and the request is refused, answered as executed, or executed again for the caller as they
 * are now (./speculation.ts, `settle`).
 */
async function settleRecalled(services: Services, execution: ExecutionResult, context: HookContext): Promise<void> {
  const speculation = context.speculation;
  if (!speculation || !context.operation) return;
  const settled = await settle(speculation, (header) => services.authenticator.authenticate(header, services.now()));
  context.speculation = undefined;
  if (settled.outcome === 'answer') return;
  if (settled.outcome === 'refuse') {
    const error = notAuthenticated(settled.error);
    context.request.log.info({ reason: settled.error.message }, 'recalled caller refused after execution: answer withheld');
    replaceExecution(execution, { data: null, errors: [new GraphQLError(error.message, { originalError: error })] }, context);
    return;
  }
  context.principal = settled.principal;
  setPrincipal(context.request, settled.principal);
  replaceExecution(execution, await rerun(context.operation, context), context);
}

/** What the GraphQL edge needs besides the services. */
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
    maxResponseBytes: services.config.GRAPHQL_MAX_RESPONSE_BYTES,
    publicMaxCost: services.config.GRAPHQL_PUBLIC_MAX_COST,
    publicMaxResponseBytes: services.config.GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES,
    subscriptionMaxCost: services.config.SUBSCRIPTION_MAX_COST,
  };
  /** A document's text before any parser sees it: its size bound and the input gate (one check for every path). */
  const checkDocumentText = (source: string): void => {
    enforceDocumentSize(source, limits);
    checkGraphqlSource(source);
  };
  await app.register(async (scope) => {
    // Before Mercurius, so that its onRequest hook sits on Mercurius' GET route.
    await registerGraphiql(scope, options.graphiql);
    registerRequestShape(scope, GRAPHQL_PATH);
    const introspection = registerIntrospectionCache(scope, GRAPHQL_PATH);
    observeOperations(scope, GRAPHQL_PATH, services.metrics);
    // GraphQL answers carry callers' data and, for serviceAccountToken and createPersonalAccessToken,
    // a token: none may be kept by a cache. (GraphiQL's page and assets set their own Cache-Control.)
    // An answer over its bound (public requests have the tighter one) is replaced by an error naming it.
    scope.addHook('onSend', (request, reply, payload, done) => {
      if (request.routeOptions.url !== GRAPHQL_PATH) return done(null, payload);
      if (!reply.hasHeader('cache-control')) void reply.header('Cache-Control', 'no-store');
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      const signedIn = principalOf(request) !== undefined;
      const limit = maxResponseBytes(limits, signedIn);
      const bytes = Buffer.byteLength(payload);
      if (bytes <= limit) return done(null, payload);
      request.log.warn({ bytes, limit, signedIn }, 'GraphQL answer over the size bound replaced by an error');
      done(null, tooLargeAnswer(bytes, limit, signedIn));
    });
    // The upstream project's action, tree and user documents, translated into this API's before Mercurius
    // parses them (./upstream-documents.ts); the size bound and input gate see the text first.
    scope.addHook('preHandler', (request, _reply, done) => {
      const body = request.body as { query?: unknown } | null | undefined;
      // An oversized document is left for preParsing to refuse as always (nothing looks at its text here).
      if (
        request.routeOptions.url !== GRAPHQL_PATH ||
        typeof body?.query !== 'string' ||
        Buffer.byteLength(body.query) > limits.maxDocumentBytes ||
        !mayBeUpstreamDocument(body.query)
      ) {
        done();
        return;
      }
      try {
        checkDocumentText(body.query);
      } catch {
        // Refused text is left for preParsing to refuse, with the answer it always gave.
        done();
        return;
      }
      body.query = translateUpstreamDocument(body.query);
      done();
    });
    // Mercurius would register the WebSocket server itself (it skips that when one exists); ours is the
    // same server with Mercurius' payload bound, but closes its connections with 1001 ("going away")
    // on shutdown, which graphql-ws clients take as a cue to reconnect (to another replica), rather
    // than without a code, which they take as a failure.
    await scope.register(fastifyWebsocket, {
      options: { maxPayload: 1024 * 1024 },
      preClose(done) {
        for (const client of this.websocketServer.clients) client.close(1001, 'server shutting down');
        // Not waiting for the closing handshakes: the listener stops accepting right after this hook.
        this.websocketServer.close();
        done();
      },
    });
    const sockets = guardSockets(scope, GRAPHQL_PATH, {
      initTimeoutMs: services.config.SUBSCRIPTION_INIT_TIMEOUT_MS,
      maxPendingPerAddress: services.config.SUBSCRIPTION_MAX_PENDING_PER_ADDRESS,
      recheckMs: services.config.SUBSCRIPTION_AUTH_RECHECK_MS,
      authenticate: (authorization) => services.authenticator.authenticate(authorization, services.now()),
      checkDocument: checkDocumentText,
      log: services.log,
    });
    const subscriptions = buildSubscriptions(services, sockets, loadUserById);
    await scope.register(mercurius, {
      schema: buildSchemaDocument(),
      resolvers: { ...buildResolvers(), ...subscriptions.resolvers, UUID, JSON: JSONScalar, DateTime } as never,
      subscription: subscriptions.options as never,
      path: GRAPHQL_PATH,
      graphiql: false,
      allowBatchedQueries: false,
      // graphql-jit compiles a document from its second run on: 10-20% less CPU per request on the
      // bench's queries (bench/graphql, docs/benchmarks.md "GraphQL throughput"); same answers and errors.
      jit: 1,
      context: (request: FastifyRequest): Partial<GraphContext> => ({ services, request }),
      errorFormatter: countingErrors(formatErrors, services.metrics),
      // The REST bearer hook skips the route; authentication happens per operation below.
      additionalRouteOptions: { config: { public: true } },
    });
    scope.graphql.addHook('preParsing', (_schema: GraphQLSchema, source: string) => {
      checkDocumentText(source);
      return Promise.resolve();
    });
    // When the text does not parse, Mercurius tries it as a JSON-encoded AST; anything but a document
    // would then crash validation, so it is refused here as the client's error (uncached documents only).
    scope.graphql.addHook('preValidation', (_schema: GraphQLSchema, document: DocumentNode) => {
      if ((document as { kind?: unknown } | null)?.kind !== Kind.DOCUMENT) {
        throw new AppError('VALIDATION', 'query is not a GraphQL document', {
          errors: [{ field: 'query', message: 'must be a GraphQL document' }],
        });
      }
      return Promise.resolve();
    });
    scope.graphql.addHook('preExecution', async (schema, document, context, variables) => {
      const graphContext = hookContextOf(context);
      noteOperation(graphContext.request, document, operationNameOf(graphContext.request));
      refuseInvalidVariables(schema, document, variables, operationNameOf(graphContext.request));
      // Mercurius passes undefined when the request has no variables, whatever its types say; a spread copes.
      const measured = enforceLimits(schema, document, { ...variables }, limits);
      await authenticate(services, graphContext, document);
      if (!graphContext.principal) {
        enforcePublicLimits(measured, limits);
        if (isIntrospectionDocument(document)) introspection.mark(graphContext.request);
      }
      if (graphContext.speculation) {
        graphContext.operation = { schema, document, variables, operationName: operationNameOf(graphContext.request) };
      }
      await awaitMinPosition(graphContext.request, services, PROJECTIONS);
      // A document Mercurius is told was modified is never compiled by graphql-jit (./nested-variables.ts).
      return nestsVariables(document) ? { document } : undefined;
    });
    // Over WebSockets Mercurius parses (the socket guard checked the text first: checkDocument above)
    // but never validates: subscriptions get the same validation and limits as queries here, before
    // anything runs (their variables are not in reach: literals count, and a subscription's selection
    // is costed against SUBSCRIPTION_MAX_COST, paid per change).
    scope.graphql.addHook('preSubscriptionExecution', (schema: GraphQLSchema, document: DocumentNode) => {
      try {
        // The limits first: they are linear in the document, validation is not always.
        enforceLimits(schema, document, {}, limits);
        refuseInvalidDocument(schema, document);
      } catch (error) {
        throw subscriptionError(error, services.log);
      }
      return Promise.resolve();
    });
    scope.graphql.addHook('onResolution', async (execution, context) => {
      await settleRecalled(services, execution, hookContextOf(context));
    });
  });
}
