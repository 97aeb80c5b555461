/**
 * Turns one `filter` entry (`key: value`) into a Condition, or into the message that says why not.
 * Every key must resolve to a declared field, link or `q`; nothing is ever skipped silently.
 */
import type { Condition, FieldSpec, FilterValue, ListSpec } from './spec.js';
import { isFilterable } from './spec.js';
import { checkValue, describeExpected, describeValue, isText } from './values.js';

/** Suffix operators, written `field__op`. */
export const OPERATORS = ['like', 'ne', 'in', 'gt', 'gte', 'lt', 'lte'] as const;
type Operator = (typeof OPERATORS)[number];

const ORDERING = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

type CompareOperator = Extract<Condition, { kind: 'compare' }>['operator'];

const isOperator = (value: string): value is Operator => (OPERATORS as readonly string[]).includes(value);

/** `created_at` → `createdAt`; camelCase input comes back unchanged. */
export const snakeToCamel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The API name a client's key refers to, or undefined. Own-property checks only, so keys such as
 * `constructor` or `__proto__` can never reach Object.prototype.
 */
export function resolveName(names: Readonly<Record<string, unknown>>, raw: string): string | undefined {
  if (Object.hasOwn(names, raw)) return raw;
  const camel = snakeToCamel(raw);
  return Object.hasOwn(names, camel) ? camel : undefined;
}

/** Every name `filter` accepts, in declaration order, for "unknown field" messages. */
export function filterableNames(spec: ListSpec): string[] {
  const fields = Object.entries(spec.fields).filter(([, field]) => isFilterable(field));
  return [...fields.map(([name]) => name), ...Object.keys(spec.links ?? {}), ...(spec.search.length > 0 ? ['q'] : [])];
}

const mismatch = (expected: string, value: unknown, index?: number): string =>
  `expected ${expected}${index === undefined ? '' : ` at index ${index}`}, got ${describeValue(value)}`;

/** Checks every element of an array value; the first bad one is the message. */
function checkAll(field: FieldSpec, values: readonly unknown[]): FilterValue[] | string {
  const checked: FilterValue[] = [];
  for (const [index, value] of values.entries()) {
    const result = checkValue(field, value);
    if (!result.ok) return mismatch(result.expected, value, index);
    checked.push(result.value);
  }
  return checked;
}

/** A comparison with one checked value, or the mismatch message. */
function compare(field: FieldSpec, operator: CompareOperator, value: unknown): Condition | string {
  const result = checkValue(field, value);
  return result.ok ? { kind: 'compare', column: field.column, operator, value: result.value } : mismatch(result.expected, value);
}

/** text[]: a scalar must be an element of the column, an array must all be elements of it. */
function arrayCondition(name: string, field: FieldSpec, operator: Operator | undefined, value: unknown): Condition | string {
  if (operator !== undefined) {
    return (
      `"__${operator}" does not apply to text[] field "${name}"; give an element it must contain, or an array of elements it must ` +
      `all contain`
    );
  }
  if (value === null) return { kind: 'isNull', column: field.column, negated: false };
  const values = checkAll(field, Array.isArray(value) ? value : [value]);
  return typeof values === 'string' ? values : { kind: 'hasAll', column: field.column, values: values.map(String) };
}

function scalarCondition(name: string, field: FieldSpec, operator: Operator | undefined, value: unknown): Condition | string {
  const { column } = field;
  switch (operator) {
    case undefined: {
      if (value === null) return { kind: 'isNull', column, negated: false };
      if (Array.isArray(value)) {
        const values = checkAll(field, value);
        return typeof values === 'string' ? values : { kind: 'oneOf', column, values };
      }
      return compare(field, '=', value);
    }
    case 'ne': {
      if (value === null) return { kind: 'isNull', column, negated: true };
      if (Array.isArray(value)) return `"__ne" takes a single value, not an array`;
      // IS DISTINCT FROM, so rows where the column is null count as "not equal" too.
      return compare(field, 'is distinct from', value);
    }
    case 'in': {
      if (!Array.isArray(value)) return `"__in" requires an array of values, got ${describeValue(value)}`;
      const values = checkAll(field, value);
      return typeof values === 'string' ? values : { kind: 'oneOf', column, values };
    }
    case 'like': {
      if (field.type !== 'text') return `"__like" applies only to text fields; "${name}" is ${field.type}`;
      return isText(value) ? { kind: 'contains', columns: [column], text: value } : mismatch(describeExpected(field), value);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (field.type !== 'datetime' && field.type !== 'number') {
        return `"__${operator}" applies only to datetime and number fields; "${name}" is ${field.type}`;
      }
      if (Array.isArray(value)) return `"__${operator}" takes a single value, not an array`;
      return compare(field, ORDERING[operator], value);
    }
  }
}

/** The Condition for one `filter` entry, or why it is refused (the caller adds `filter.<key>`). */
export function parseFilterEntry(spec: ListSpec, key: string, value: unknown): Condition | string {
  // `__` splits name from operator; a key starting with `__` is a (necessarily unknown) name.
  const split = key.indexOf('__');
  const rawName = split > 0 ? key.slice(0, split) : key;
  const rawOperator = split > 0 ? key.slice(split + 2) : undefined;

  if (rawName === 'q' && spec.search.length > 0) {
    if (rawOperator !== undefined) return `"q" takes no operators; it already searches ${spec.search.join(', ')}`;
    return isText(value) ? { kind: 'contains', columns: spec.search, text: value } : mismatch('a string', value);
  }

  const linkName = spec.links ? resolveName(spec.links, rawName) : undefined;
  const link = linkName === undefined ? undefined : spec.links?.[linkName];
  if (linkName !== undefined && link) {
    if (rawOperator !== undefined) return `"${linkName}" takes an id or an array of ids, without operators`;
    const ids = checkAll({ column: link.targetColumn, type: 'uuid' }, Array.isArray(value) ? value : [value]);
    if (typeof ids === 'string') return Array.isArray(value) ? ids : mismatch('a UUID or an array of UUIDs', value);
    return { kind: 'linked', link, ids: ids.map(String) };
  }

  const name = resolveName(spec.fields, rawName);
  const field = name === undefined ? undefined : spec.fields[name];
  if (name === undefined || !field) return `unknown filter field "${rawName}"; filterable fields: ${filterableNames(spec).join(', ')}`;
  if (!isFilterable(field)) return `field "${name}" cannot be filtered; filterable fields: ${filterableNames(spec).join(', ')}`;
  if (rawOperator !== undefined && !isOperator(rawOperator)) {
    return `unknown operator "__${rawOperator}" on "${name}"; operators: ${OPERATORS.map((op) => `__${op}`).join(', ')}`;
  }
  return field.type === 'text[]' ? arrayCondition(name, field, rawOperator, value) : scalarCondition(name, field, rawOperator, value);
}
