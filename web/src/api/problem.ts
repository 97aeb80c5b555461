import { HttpError } from 'react-admin';

/** One invalid field as the API names it (`configuration.clientSecret`, `variables[0].value`). */
export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

/** RFC 9457 problem details as the API answers every error (src/http/problem.ts). */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status: number;
  readonly detail?: string;
  readonly code?: string;
  readonly errors?: readonly FieldIssue[];
  readonly requestId?: string;
  readonly allowedActions?: readonly string[];
  readonly [extension: string]: unknown;
}

/**
 * The body react-admin reads from a rejected save: `errors` maps form paths to messages (shown
 * next to those inputs), and `root.serverError` is the notification's text (refusedFields).
 */
export interface ProblemBody extends Omit<Problem, 'errors'> {
  readonly problem: Problem;
  readonly errors?: Record<string, string | Record<string, string>>;
}

/** `variables[0].value` → `variables.0.value` (react-hook-form paths). */
export const formPath = (field: string): string => field.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

/** Everything a problem says, in one line, for notifications and form-level messages. */
export function describeProblem(problem: Problem): string {
  const main = problem.detail ?? problem.title ?? `HTTP ${problem.status}`;
  const issues = (problem.errors ?? []).map((e) => `${e.field || 'body'}: ${e.message}`);
  return issues.length > 0 ? `${main} (${issues.join('; ')})` : main;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a problem from a failed response; anything else becomes a problem with the status. */
export function toProblem(status: number, body: unknown, fallback: string): Problem {
  if (isRecord(body) && (typeof body.detail === 'string' || typeof body.title === 'string')) {
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    const errors = Array.isArray(body.errors)
      ? (body.errors as unknown[]).filter(isRecord).map((e) => ({ field: text(e.field) || text(e.path), message: text(e.message) }))
      : undefined;
    return { ...body, status, ...(errors ? { errors } : {}) };
  }
  return { status, title: fallback, detail: typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : fallback };
}

/**
 * What the notification of a save refused for its fields says (react-admin shows `root.serverError`):
 * how many fields, in plain words; each field's own message sits under its input (ServerErrors names
 * the fields the form has no input for), so none is said twice.
 */
export const refusedFields = (count: number): string =>
  count === 1 ? 'Not saved: one field needs a change.' : `Not saved: ${String(count)} fields need a change.`;

/** The react-admin error for a problem: field errors where the form can show them. */
export function problemError(problem: Problem): HttpError {
  const { errors: issues = [], ...rest } = problem;
  const body: ProblemBody = {
    ...rest,
    problem,
    ...(issues.length > 0
      ? {
          errors: {
            ...Object.fromEntries(issues.filter((e) => e.field !== '').map((e) => [formPath(e.field), e.message])),
            root: { serverError: refusedFields(issues.length) },
          },
        }
      : {}),
  };
  return new HttpError(describeProblem(problem), problem.status, body);
}

/** The problem carried by an error thrown by the API client, if any. */
export function problemOf(error: unknown): Problem | undefined {
  if (error instanceof HttpError && isRecord(error.body) && isRecord(error.body.problem)) return error.body.problem as unknown as Problem;
  return undefined;
}

/** A readable message for any error the UI catches. */
export const messageOf = (error: unknown): string => {
  const problem = problemOf(error);
  if (problem) return describeProblem(problem);
  return error instanceof Error ? error.message : String(error);
};
