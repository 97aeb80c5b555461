import { z } from 'zod';
import { validationError, type AppError, type FieldIssue } from './errors.js';

/** A UUID in canonical lower case (stream ids are built from ids, so `A…` and `a…` must be one entity). */
export const canonicalUuid = z.uuid({ message: 'must be a UUID' }).transform((id) => id.toLowerCase());

/** `parentIds.0` → `parentIds[0]`, so a field path reads like the JSON it points into. */
export function fieldPath(path: readonly PropertyKey[], prefix?: string): string {
  let out = prefix ?? '';
  for (const segment of path) {
    out += typeof segment === 'number' ? `[${segment}]` : out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? (prefix ?? 'body') : out;
}

/** Every problem zod found, one per field; unknown keys are named one by one. */
export function zodIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: fieldPath([...issue.path, key], prefix), message: 'unknown field' }));
    }
    return [{ field: fieldPath(issue.path, prefix), message: issue.message }];
  });
}

/** The 400 for invalid input: the message names each invalid field once, `errors` says what is wrong with each. */
export function invalidInput(where: string, errors: FieldIssue[]): AppError {
  return validationError(`invalid ${where}: ${[...new Set(errors.map((e) => e.field))].join(', ')}`, errors);
}

/** Parses input at the edge; failure is a 400 listing every invalid field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: string, prefix?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidInput(where, zodIssues(result.error, prefix));
}
