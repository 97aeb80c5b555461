/**
 * Validates a list request (`filter`, `sort`, `range`) against a ListSpec. Every problem is
 * collected, so one 400 names all of them, each under the parameter (or filter key) it concerns.
 */
import { AppError, validationError, type FieldIssue } from '../../errors.js';
import { parseJsonInput } from '../../input-gate.js';
import { parseFilterEntry, resolveName } from './filter.js';
import { DEFAULT_LIST_LIMITS, isSortable, type Condition, type ListInput, type ListLimits, type ListQuery, type ListSpec } from './spec.js';

const DEFAULT_SORT = ['createdAt', 'DESC'] as const;
const DEFAULT_PAGE_SIZE = 100;

// Marks a parameter whose JSON did not parse (already reported), as opposed to an absent one.
const INVALID = Symbol('invalid JSON');

/** REST sends each parameter as a JSON string (parsed behind the input gate), GraphQL as the parsed value: accept both. */
function decode(raw: unknown, name: string, issues: FieldIssue[]): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return parseJsonInput(raw, name);
  } catch (error) {
    const refused = error instanceof AppError ? error.errors : [];
    const gate = refused.find((issue) => !issue.message.startsWith('must be valid JSON'));
    issues.push(gate ?? { field: name, message: `${name} is not valid JSON` });
    return INVALID;
  }
}

function parseFilter(spec: ListSpec, raw: unknown, issues: FieldIssue[]): Condition[] {
  const filter = decode(raw, 'filter', issues);
  if (filter === INVALID || filter === undefined || filter === null) return [];
  if (typeof filter !== 'object' || Array.isArray(filter)) {
    issues.push({ field: 'filter', message: 'filter must be a JSON object of field: value pairs' });
    return [];
  }
  const conditions: Condition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    // JSON cannot express undefined; only a JavaScript caller's absent optional value can, and absent means no filter.
    if (value === undefined) continue;
    const condition = parseFilterEntry(spec, key, value);
    if (typeof condition === 'string') issues.push({ field: `filter.${key}`, message: condition });
    else conditions.push(condition);
  }
  return conditions;
}

const sortableNames = (spec: ListSpec): string[] =>
  Object.entries(spec.fields)
    .filter(([, field]) => isSortable(field))
    .map(([name]) => name);

/** Resolves a `[field, direction]` pair, or returns why it is refused. */
function resolveSort(spec: ListSpec, pair: unknown): ListQuery['sort'] | string {
  const [name, direction] = Array.isArray(pair) && pair.length === 2 ? (pair as unknown[]) : [];
  if (typeof name !== 'string' || typeof direction !== 'string') return 'sort must be [field, direction], e.g. ["createdAt", "DESC"]';
  const resolved = resolveName(spec.fields, name);
  const field = resolved === undefined ? undefined : spec.fields[resolved];
  if (resolved === undefined || !field) return `unknown sort field "${name}"; sortable fields: ${sortableNames(spec).join(', ')}`;
  if (!isSortable(field)) return `field "${resolved}" cannot be sorted; sortable fields: ${sortableNames(spec).join(', ')}`;
  const upper = direction.toUpperCase();
  if (upper !== 'ASC' && upper !== 'DESC') return `sort direction must be ASC or DESC, got ${JSON.stringify(direction)}`;
  return { field: resolved, column: field.column, direction: upper };
}

function parseSort(spec: ListSpec, raw: unknown, issues: FieldIssue[]): ListQuery['sort'] | undefined {
  const pair = decode(raw, 'sort', issues);
  if (pair === INVALID) return undefined;
  if (pair === undefined || pair === null) {
    const fallback = resolveSort(spec, spec.defaultSort ?? DEFAULT_SORT);
    // A default the spec cannot sort by is a bug in the spec, not the client's fault.
    if (typeof fallback === 'string') throw new Error(`list spec "${spec.resource}" has an invalid default sort: ${fallback}`);
    return fallback;
  }
  const sort = resolveSort(spec, pair);
  if (typeof sort !== 'string') return sort;
  issues.push({ field: 'sort', message: sort });
  return undefined;
}

function parseRange(raw: unknown, limits: ListLimits, issues: FieldIssue[]): { offset: number; limit: number } | undefined {
  const range = decode(raw, 'range', issues);
  if (range === INVALID) return undefined;
  if (range === undefined || range === null) {
    return { offset: 0, limit: Math.min(limits.defaultPageSize ?? DEFAULT_PAGE_SIZE, limits.maxPageSize) };
  }
  const [offset, limit] = Array.isArray(range) && range.length === 2 ? (range as unknown[]) : [];
  const problem =
    typeof offset !== 'number' || typeof limit !== 'number' || !Number.isSafeInteger(offset) || !Number.isSafeInteger(limit)
      ? 'range must be [offset, limit] with two integers, e.g. [0, 100]'
      : offset < 0 || limit < 0
        ? 'range offset and limit must not be negative'
        : limit > limits.maxPageSize
          ? `range limit ${limit} exceeds the maximum page size of ${limits.maxPageSize}`
          : undefined;
  if (problem === undefined) return { offset: offset as number, limit: limit as number };
  issues.push({ field: 'range', message: problem });
  return undefined;
}

/**
 * Validates a list request against `spec`.
 *
 * @param input - `filter`, `sort` and `range`, each optional (absent or null means the default),
 *   each either a JSON string (REST) or the parsed value (GraphQL).
 * @param limits - page bounds; default `maxPageSize` 1000, default page size 100.
 * @returns the validated query, with defaults applied (`sort` `["createdAt", "DESC"]`, `range` `[0, 100]`).
 * @throws AppError `VALIDATION` whose `errors` name every problem (`filter.<key>`, `sort`, `range`).
 */
export function parseListQuery(spec: ListSpec, input: ListInput, limits: ListLimits = DEFAULT_LIST_LIMITS): ListQuery {
  const issues: FieldIssue[] = [];
  const conditions = parseFilter(spec, input.filter, issues);
  const sort = parseSort(spec, input.sort, issues);
  const page = parseRange(input.range, limits, issues);
  if (issues.length > 0 || sort === undefined || page === undefined) {
    const [first] = issues;
    const summary = issues.length === 1 && first ? `${first.field}: ${first.message}` : `${issues.length} problems; see errors`;
    throw validationError(`invalid list query: ${summary}`, issues);
  }
  return { conditions, sort, offset: page.offset, limit: page.limit };
}
