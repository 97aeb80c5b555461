/**
 * The one error taxonomy of the service, and its registry of stable codes. Every failure a client
 * may see carries one of these codes (`code` in a REST problem, `extensions.code` in GraphQL); the
 * wording of a message may change between versions, a code may not. docs/errors.md documents each
 * one, and a test keeps that page and this registry equal.
 *
 * Ten codes are categories: the generic answer of their status. The others refine a category where
 * a client can do something different (retry, reload, pick another name); each names its category,
 * which decides the HTTP status, the problem's title and how GraphQL treats it.
 */
export type ErrorCategory =
  | 'VALIDATION' // 400: malformed input (body, query, header)
  | 'UNPROCESSABLE' // 422: well-formed input that breaks a domain rule (missing reference, …)
  | 'NOT_FOUND' // 404
  | 'CONFLICT' // 409: uniqueness, illegal transition, concurrent modification
  | 'PRECONDITION_FAILED' // 412: If-Match revision mismatch
  | 'UNAUTHENTICATED' // 401
  | 'FORBIDDEN' // 403
  | 'RATE_LIMITED' // 429
  | 'UNAVAILABLE' // 503: a store is down or projections lag beyond the bound
  | 'INTERNAL'; // 500: a bug; never caused by bad input

/** Where a code can be answered: both APIs, or only one of them. */
export type ErrorApi = 'both' | 'rest' | 'graphql';

/** One code of the registry: its category, HTTP status, the API answering it, and when it happens. */
export interface ErrorEntry {
  readonly category: ErrorCategory;
  /** The HTTP status a REST problem with this code answers (GraphQL answers 200 or 400, see docs/api/graphql.md). */
  readonly status: number;
  readonly api: ErrorApi;
  /** When it happens, as docs/errors.md says it. */
  readonly when: string;
}

const entry = (category: ErrorCategory, status: number, when: string, api: ErrorApi = 'both'): ErrorEntry => ({
  category,
  status,
  api,
  when,
});

/** Every code the service answers. Add codes freely; never rename or remove one. */
export const ERROR_REGISTRY = {
  // The categories, each its own generic code.
  VALIDATION: entry(
    'VALIDATION',
    400,
    'A body, query parameter or header does not parse or breaks its schema; `errors` lists each invalid field.',
    'rest',
  ),
  UNPROCESSABLE: entry(
    'UNPROCESSABLE',
    422,
    'Well-formed input that breaks a domain rule (a variable the template does not declare, a value out of its range); `errors` lists ' +
      'the fields.',
    'rest',
  ),
  NOT_FOUND: entry(
    'NOT_FOUND',
    404,
    'No such entity, route or provider, or one the caller may not read (an owned secret answers 404, not 403, to a stranger).',
  ),
  CONFLICT: entry('CONFLICT', 409, 'The request cannot apply to the current state, for a reason no finer code names.'),
  PRECONDITION_FAILED: entry(
    'PRECONDITION_FAILED',
    412,
    'The revision sent in `If-Match` (REST) or `revision` (GraphQL) is not the current one: read the entity again and retry.',
  ),
  UNAUTHENTICATED: entry(
    'UNAUTHENTICATED',
    401,
    'No credentials, or a token, session or password that is invalid, expired, revoked or belongs to a deactivated user.',
  ),
  FORBIDDEN: entry(
    'FORBIDDEN',
    403,
    'The caller is known but lacks the right; `missingPermission` names it where one permission would do.',
  ),
  RATE_LIMITED: entry(
    'RATE_LIMITED',
    429,
    'Too many sign-in attempts, or too many live subscriptions for one caller; `retryAfter` (and the `Retry-After` header) says when ' +
      'to try again.',
  ),
  UNAVAILABLE: entry('UNAVAILABLE', 503, 'A store is down or was unreachable for this request; nothing was lost: retry shortly.', 'rest'),
  INTERNAL: entry('INTERNAL', 500, 'A bug. The message is masked; the log has the cause under the `requestId`.', 'rest'),

  // Refinements.
  PAYLOAD_TOO_LARGE: entry('VALIDATION', 413, 'The body is larger than the route accepts.'),
  METHOD_NOT_ALLOWED: entry(
    'VALIDATION',
    405,
    'The route exists but not for this method (GET and DELETE of `/api/mcp`: the MCP server is stateless, POST each message).',
    'rest',
  ),
  HEADERS_TOO_LARGE: entry(
    'VALIDATION',
    431,
    'The request line and headers (a long URL counts) are larger than the server accepts; the connection is closed after the answer.',
    'rest',
  ),
  REQUEST_TIMEOUT: entry('VALIDATION', 408, 'The request was not received in time; the connection is closed after the answer.', 'rest'),
  UNSUPPORTED_MEDIA_TYPE: entry(
    'VALIDATION',
    415,
    'The `Content-Type` is not one the route accepts (JSON, or CSV where an import says so).',
    'rest',
  ),
  LIMIT_EXCEEDED: entry(
    'VALIDATION',
    400,
    'A GraphQL document is deeper, costlier, wider or larger in answer than the configured limits; `limit` names which one.',
    'graphql',
  ),
  POSITION_AHEAD: entry(
    'VALIDATION',
    400,
    "An `X-Min-Position` header or a subscription's `after` names a position beyond the newest event: send one the service returned.",
  ),
  SELF_APPROVAL: entry(
    'FORBIDDEN',
    403,
    "An approver approves a request they made themselves: another approver must (separation of duties), unless the template's team " +
      'allows self-approval (`allowSelfApproval`).',
  ),
  INVALID_REFERENCE: entry(
    'UNPROCESSABLE',
    422,
    'An id in the input names no entity of the right kind, a disabled one, or one in the wrong state (for example a template that is ' +
      'not enabled); `errors` names the field.',
  ),
  INVALID_VARIABLES: entry(
    'UNPROCESSABLE',
    422,
    "A resource's variables do not match what its source code version declares (a required one missing, an unknown one, a wrong type, " +
      'a value its validation refuses); `errors` names each variable.',
  ),
  IDEMPOTENCY_KEY_REUSED: entry(
    'UNPROCESSABLE',
    422,
    'An `Idempotency-Key` already used for a different request (method, path or body).',
    'rest',
  ),
  EXPORT_TOO_LARGE: entry(
    'UNPROCESSABLE',
    422,
    'An audit-log export would hold more rows than `AUDIT_EXPORT_MAX_ROWS`: narrow the filter or export in parts.',
    'rest',
  ),
  ALREADY_EXISTS: entry('CONFLICT', 409, 'An entity, session or token with this id exists already (a client-chosen id used twice).'),
  NOT_UNIQUE: entry('CONFLICT', 409, 'A value that must be unique (a name, an identifier, a URL) is taken; `errors` names the field.'),
  ILLEGAL_TRANSITION: entry(
    'CONFLICT',
    409,
    "The action is not allowed from the entity's state and status; `allowedActions` lists the ones that are.",
  ),
  ENTITY_BUSY: entry('CONFLICT', 409, 'The entity cannot change these fields while a run or request is in flight: wait until it ends.'),
  STILL_REFERENCED: entry('CONFLICT', 409, 'The entity cannot be deleted or disabled while others refer to it; `referrers` lists them.'),
  LINEAGE_CONFLICT: entry(
    'CONFLICT',
    409,
    'A resource cannot be recreated under a destroyed parent, or destroyed while children live; `parents` or `children` lists them.',
  ),
  CONCURRENT_MODIFICATION: entry('CONFLICT', 409, 'Another write changed the entity at the same moment: retry the request.'),
  LAST_SUPER_ACCESS: entry('CONFLICT', 409, 'The change would leave no active super user, or no way for one to sign in.'),
  RUN_ENDED: entry('CONFLICT', 409, "A run's log takes no more output once the run has ended; `runStatus` says how it ended."),
  IDEMPOTENCY_IN_FLIGHT: entry('CONFLICT', 409, 'A request with this `Idempotency-Key` is still running: retry in a few seconds.', 'rest'),
  IDEMPOTENT_ANSWER_WITHHELD: entry(
    'CONFLICT',
    409,
    'The first request with this `Idempotency-Key` succeeded, but its answer held a secret, which is never kept: look the result up ' +
      'instead.',
    'rest',
  ),
  FEATURE_DISABLED: entry(
    'CONFLICT',
    409,
    'The feature needs a provider or setting that is off (for example personal access tokens without the `personal_access_token` ' +
      'provider).',
  ),
  READ_MODEL_LAGGING: entry(
    'UNAVAILABLE',
    503,
    'The write was stored (its `position` is given) but the read side did not catch up in time: read it again shortly, or send ' +
      '`X-Min-Position`.',
  ),
  READ_MODEL_STOPPED: entry(
    'UNAVAILABLE',
    503,
    'A read model is stopped on an event it cannot apply: an operator must rebuild it (docs/operations.md).',
  ),

  // GraphQL's conventional names, answered by GraphQL in place of the category codes they stand for.
  BAD_USER_INPUT: entry(
    'VALIDATION',
    400,
    "GraphQL's name for `VALIDATION` and `UNPROCESSABLE`: a variable, argument or input that is malformed or breaks a rule.",
    'graphql',
  ),
  GRAPHQL_PARSE_FAILED: entry('VALIDATION', 400, 'The document is not valid GraphQL syntax.', 'graphql'),
  GRAPHQL_VALIDATION_FAILED: entry(
    'VALIDATION',
    400,
    'The document does not validate against the schema (an unknown field, a missing argument).',
    'graphql',
  ),
  BAD_REQUEST: entry(
    'VALIDATION',
    400,
    'The HTTP request around a GraphQL document is malformed (bad JSON, no `query`, wrong parameter types).',
    'graphql',
  ),
  SERVICE_UNAVAILABLE: entry('UNAVAILABLE', 503, "GraphQL's name for `UNAVAILABLE`.", 'graphql'),
  INTERNAL_SERVER_ERROR: entry('INTERNAL', 500, "GraphQL's name for `INTERNAL`.", 'graphql'),
} as const satisfies Record<string, ErrorEntry>;

/** A registered code. */
export type ErrorCode = keyof typeof ERROR_REGISTRY;

/** Whether a string is a registered code (the tests check every answered code with it). */
export const isRegisteredCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_REGISTRY, code);

/** The category of a code: what decides its status and how each API treats it. */
export const categoryOf = (code: ErrorCode): ErrorCategory => ERROR_REGISTRY[code].category;

/** One invalid field: a dotted path into the input and a human message. */
export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

/** What an AppError carries besides its code and message. */
export interface AppErrorOptions {
  readonly errors?: readonly FieldIssue[];
  /** Extra, client-safe details (e.g. current state and allowed actions). */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/** The one error type of the domain: a registered code, mapped once per edge. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly errors: readonly FieldIssue[];
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.category = categoryOf(code);
    this.errors = options.errors ?? [];
    this.details = options.details ?? {};
  }
}

/** A 400 listing every invalid field. */
export const validationError = (message: string, errors: readonly FieldIssue[] = []): AppError =>
  new AppError('VALIDATION', message, { errors });

/** A 422 listing every field that breaks a rule. */
export const unprocessable = (message: string, errors: readonly FieldIssue[] = []): AppError =>
  new AppError('UNPROCESSABLE', message, { errors });

/** A 404. */
export const notFound = (message: string): AppError => new AppError('NOT_FOUND', message);

/** Whether a value is an AppError. */
export const isAppError = (value: unknown): value is AppError => value instanceof AppError;
