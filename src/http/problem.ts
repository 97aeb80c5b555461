import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isTransientDatabaseError } from '../storage/errors.js';
import { AppError, ERROR_REGISTRY, type ErrorCategory, type ErrorCode, type FieldIssue } from '../errors.js';
import { NOT_AUTHENTICATED } from '../edge/authorize.js';

/** The title of a problem: one per category, or per status where a code has a status of its own. */
const TITLE: Record<ErrorCategory, string> = {
  VALIDATION: 'Invalid request',
  UNAUTHENTICATED: 'Not authenticated',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict',
  PRECONDITION_FAILED: 'Precondition failed',
  UNPROCESSABLE: 'Unprocessable request',
  RATE_LIMITED: 'Too many requests',
  INTERNAL: 'Internal error',
  UNAVAILABLE: 'Service unavailable',
};
const STATUS_TITLE: Readonly<Record<number, string>> = {
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  431: 'Request header fields too large',
};

/** The RFC 9457 members of a problem, and ours (`code`, `errors`, `requestId`). */
interface ProblemMembers {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldIssue[];
  readonly requestId?: string;
  readonly [extension: string]: unknown;
}

/** RFC 9457 problem details, as every error response of the REST API carries them. */
export interface Problem extends ProblemMembers {
  /** `detail` and `code` under the keys the upstream project's clients read (docs/contract.md §12). */
  readonly message: string;
  readonly error_code: ErrorCode;
}

/** A problem's members, with `detail` and `code` also under the upstream's keys. */
const problemOf = (members: ProblemMembers): Problem => ({ ...members, message: members.detail, error_code: members.code });

/** The HTTP status of an error code. */
export const statusOf = (code: ErrorCode): number => ERROR_REGISTRY[code].status;

/** Fastify's own 4xx errors (bad JSON, wrong content type, body too large) in our taxonomy. */
function fromFastify(error: FastifyError): AppError | undefined {
  const status = error.statusCode;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  if (status === 404) return new AppError('NOT_FOUND', error.message);
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', error.message);
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', error.message);
  if (status === 429) return new AppError('RATE_LIMITED', error.message);
  return new AppError(
    'VALIDATION',
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
      ? `the body is not valid JSON: ${error.message}`
      : error.message,
  );
}

/** Maps any thrown value to a problem. Unknown errors become a masked 500: nothing internal leaks. */
export function toProblem(error: unknown, requestId?: string): Problem {
  const appError =
    error instanceof AppError
      ? error
      : isTransientDatabaseError(error)
        ? new AppError('UNAVAILABLE', 'the database is unavailable; try again shortly', { cause: error })
        : fromFastify(error as FastifyError);
  if (!appError) {
    return problemOf({
      type: 'about:blank',
      title: TITLE.INTERNAL,
      status: 500,
      detail: 'An unexpected error occurred; it has been logged.',
      code: 'INTERNAL',
      requestId,
    });
  }
  const status = statusOf(appError.code);
  const detail = appError.category === 'INTERNAL' ? 'An unexpected error occurred; it has been logged.' : appError.message;
  return problemOf({
    ...appError.details,
    type: `urn:infraledger:problem:${appError.code.toLowerCase().replaceAll('_', '-')}`,
    title: STATUS_TITLE[status] ?? TITLE[appError.category],
    status,
    detail,
    code: appError.code,
    ...(appError.errors.length > 0 ? { errors: appError.errors } : {}),
    requestId,
  });
}

/** Fastify error handler: one mapping for every route. */
export function sendProblem(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const problem = toProblem(error, request.id);
  if (problem.status >= 500 && problem.status !== 503) request.log.error({ err: error }, 'request failed');
  else if (problem.status >= 500) request.log.warn({ err: error }, 'request answered 503');
  if (problem.status === 401) {
    // RFC 6750 §3.1: no error code when the request carried no credentials at all.
    const challenge =
      problem.detail === NOT_AUTHENTICATED
        ? 'Bearer'
        : `Bearer error="invalid_token", error_description="${problem.detail.replaceAll('"', "'")}"`;
    void reply.header('WWW-Authenticate', challenge);
  }
  if (problem.status === 429 && typeof problem.retryAfter === 'number') void reply.header('Retry-After', String(problem.retryAfter));
  return reply.status(problem.status).type('application/problem+json').send(problem);
}
