import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { isTransientDatabaseError } from '../storage/errors.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { GraphContext } from './resolvers.js';

/** The one mapping of the error taxonomy onto GraphQL `extensions.code` (REST maps it to problem details). */
const CODES: Record<ErrorCode, string> = {
  VALIDATION: 'BAD_USER_INPUT',
  UNPROCESSABLE: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

interface Logger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Mercurius wraps parse and validation failures in one error carrying the list. */
function flatten(error: GraphQLError): GraphQLError[] {
  const original = error.originalError as { code?: unknown; errors?: unknown } | undefined;
  const inner = original?.code === 'MER_ERR_GQL_VALIDATION' ? original.errors : undefined;
  if (Array.isArray(inner)) return inner.map((e) => (e instanceof GraphQLError ? e : new GraphQLError(e instanceof Error ? e.message : String(e))));
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
    return { error: withExtensions(error, error.message, { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' }), clientError: true, status };
  }
  if (original instanceof AppError) {
    const extensions: Record<string, unknown> = { code: CODES[original.code], ...original.details };
    if (original.errors.length > 0) extensions.errors = original.errors;
    return { error: withExtensions(error, original.message, extensions), clientError: original.code === 'VALIDATION' };
  }
  if (original === undefined || original instanceof GraphQLError) {
    const source = original instanceof GraphQLError ? original : error;
    // The compiled (JIT) path builds some errors without `extensions` (variable coercion on a
    // document's second run): they are still the client's input, never an internal error.
    const given: unknown = (source.extensions as Record<string, unknown> | undefined)?.code;
    const code = typeof given === 'string' ? given : error.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
    return { error: withExtensions(error, error.message, { code }), clientError: true };
  }
  if (isTransientDatabaseError(original)) {
    log.warn({ err: original, requestId }, 'GraphQL request failed: database unavailable');
    return { error: withExtensions(error, 'The service is temporarily unavailable; retry shortly.', { code: 'SERVICE_UNAVAILABLE', requestId }), clientError: false };
  }
  log.error({ err: original, requestId, path: error.path }, 'GraphQL resolver failed');
  return { error: withExtensions(error, 'Internal server error', { code: 'INTERNAL_SERVER_ERROR', requestId }), clientError: false };
}

/**
 * Mercurius' errorFormatter: every error through `present`. A request refused for its input alone
 * (no data, every error a parse, validation, limit or argument error) answers 400, as Mercurius does
 * for validation; everything else 200 (GraphQL over HTTP), authentication failures included.
 */
export function formatErrors(execution: ExecutionResult, context: Partial<GraphContext> & { reply?: { log: Logger; request: { id: string } } }) {
  const log: Logger = context.reply?.log ?? { warn: () => undefined, error: () => undefined };
  const requestId = context.reply?.request.id ?? '';
  const presented = (execution.errors ?? []).flatMap(flatten).map((error) => present(error, log, requestId));
  const refusedInput = execution.data == null && presented.length > 0 && presented.every((p) => p.clientError);
  return {
    statusCode: refusedInput ? (presented.find((p) => p.status !== undefined)?.status ?? 400) : 200,
    response: { data: execution.data ?? null, errors: presented.map((p) => p.error.toJSON()) },
  };
}
