/**
 * The one error taxonomy of the service. Every failure a client may see is an AppError with a code
 * from this closed set; each edge (REST problem details, GraphQL extensions) maps it exactly once.
 */
export type ErrorCode =
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

/** The one error type of the domain: a closed set of codes, mapped once per edge. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly errors: readonly FieldIssue[];
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
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

/** A 409 with details. */
export const conflict = (message: string, details: Record<string, unknown> = {}): AppError =>
  new AppError('CONFLICT', message, { details });

/** Whether a value is an AppError. */
export const isAppError = (value: unknown): value is AppError => value instanceof AppError;
