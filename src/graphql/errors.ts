import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { isTransientDatabaseError } from '../storage/errors.js';
import { AppError, isRegisteredCode, type ErrorCode } from '../errors.js';
import type { GraphContext } from './context.js';
import { wantsGraphqlResponse } from './media-type.js';

/**
 * GraphQL answers a category code under GraphQL's conventional name (BAD_USER_INPUT, …); every
 * refined code is answered as REST answers it. All of them are in the one registry (errors.ts).
 */
const GRAPHQL_NAME: Partial<Record<ErrorCode, ErrorCode>> = {
  VALIDATION: 'BAD_USER_INPUT',
  UNPROCESSABLE: 'BAD_USER_INPUT',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

/** The `extensions.code` of an error: registered codes pass; anything else graphql-js made is a document problem. */
const documentCode = (given: unknown, message: string): ErrorCode =>
  isRegisteredCode(given) ? given : message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';

interface Logger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Mercurius wraps parse and validation failures in one error carrying the list. */
function flatten(error: GraphQLError): GraphQLError[] {
  const original = error.originalError as { code?: unknown; errors?: unknown } | undefined;
  const inner = original?.code === 'MER_ERR_GQL_VALIDATION' ? original.errors : undefined;
  // A body-schema failure is inside too: kept as the original error, so its 400 stays a malformed request.
  if (Array.isArray(inner)) {
    return inner.map((e) =>
      e instanceof GraphQLError
        ? e
        : new GraphQLError(e instanceof Error ? e.message : String(e), { originalError: e instanceof Error ? e : undefined }),
    );
  }
  return [error];
}

function withExtensions(error: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, extensions });
}

/**
 * Maps one error to what the client sees. Domain errors keep their message and get their code;
 * GraphQL's own parse/validation errors are the client's input; anything else is a bug or an outage,
 * logged with the request id and masked so no SQL, stack or secret leaves the service.
 */
/** An HTTP-level refusal by Fastify or Mercurius (malformed JSON, body too large, no query): a 4xx with a safe message. */
function httpClientStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

function present(error: GraphQLError, log: Logger, requestId: string): { error: GraphQLError; clientError: boolean; status?: number } {
  const original = error.originalError;
  const status = original instanceof AppError ? undefined : httpClientStatus(original);
  if (status !== undefined) {
    return {
      error: withExtensions(error, error.message, { code: (status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST') satisfies ErrorCode }),
      clientError: true,
      status,
    };
  }
  if (original instanceof AppError) {
    const extensions: Record<string, unknown> = { code: GRAPHQL_NAME[original.code] ?? original.code, ...original.details };
    if (original.errors.length > 0) extensions.errors = original.errors;
    return { error: withExtensions(error, original.message, extensions), clientError: original.category === 'VALIDATION' };
  }
  if (original === undefined || original instanceof GraphQLError) {
    const source = original instanceof GraphQLError ? original : error;
    // The compiled (JIT) path builds some errors without `extensions` (variable coercion on a
    // document's second run): they are still the client's input, never an internal error.
    const given: unknown = (source.extensions as Record<string, unknown> | undefined)?.code;
    return { error: withExtensions(error, error.message, { code: documentCode(given, error.message) }), clientError: true };
  }
  if (isTransientDatabaseError(original)) {
    log.warn({ err: original, requestId }, 'GraphQL request failed: database unavailable');
    return {
      error: withExtensions(error, 'The service is temporarily unavailable; retry shortly.', {
        code: 'SERVICE_UNAVAILABLE' satisfies ErrorCode,
        requestId,
      }),
      clientError: false,
    };
  }
  log.error({ err: original, requestId, path: error.path }, 'GraphQL resolver failed');
  return {
    error: withExtensions(error, 'Internal server error', { code: 'INTERNAL_SERVER_ERROR' satisfies ErrorCode, requestId }),
    clientError: false,
  };
}

/**
 * Mercurius' errorFormatter: every error through `present`, then the status and body GraphQL over
 * HTTP gives them. A malformed HTTP request (bad JSON, no query, wrong parameter types, too large)
 * answers its 4xx. A request error (refused before execution for its input: parse, validation,
 * variables, limits) has no `data` entry and answers 400 under `application/graphql-response+json`,
 * 200 under `application/json`. Everything else, authentication failures included (their body is
 * `data: null` as the seed gives it), answers 200.
 */
export function formatErrors(
  execution: ExecutionResult,
  context: Partial<GraphContext> & { reply?: { log: Logger; request: { id: string; headers?: { accept?: string } } } },
) {
  const log: Logger = context.reply?.log ?? { warn: () => undefined, error: () => undefined };
  const request = context.reply?.request;
  const presented = (execution.errors ?? []).flatMap(flatten).map((error) => present(error, log, request?.id ?? ''));
  const errors = presented.map((p) => p.error.toJSON());
  const httpStatus = presented.find((p) => p.status !== undefined)?.status;
  const requestError = execution.data == null && presented.length > 0 && presented.every((p) => p.clientError);
  if (httpStatus !== undefined || requestError) {
    const status = httpStatus ?? (request?.headers && wantsGraphqlResponse({ headers: request.headers }) ? 400 : 200);
    return { statusCode: status, response: { errors } };
  }
  return { statusCode: 200, response: { data: execution.data ?? null, errors } };
}

/**
 * An error as a subscription sends it: graphql-ws messages do not go through the error formatter,
 * so the code is put on the error itself (unexpected errors masked as everywhere).
 */
export function subscriptionError(error: unknown, log: Logger): GraphQLError {
  const wrapped =
    error instanceof GraphQLError
      ? error
      : new GraphQLError(error instanceof Error ? error.message : String(error), {
          originalError: error instanceof Error ? error : undefined,
        });
  return present(wrapped, log, '').error;
}
