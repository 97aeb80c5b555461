/**
 * Per-type validation of filter values. Anything the database would refuse (a malformed uuid, an
 * impossible date, a float for an integer column, a NUL byte) is caught here, so bad input is a 400
 * with a clear message instead of a 500 from PostgreSQL.
 */
import type { FieldSpec, FilterValue } from './spec.js';

/** A checked value, or what was expected instead (phrased to follow "expected "). */
export type Checked = { readonly ok: true; readonly value: FilterValue } | { readonly ok: false; readonly expected: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Calendar date, optionally a time (seconds and fraction optional) and an offset.
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/i;

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

const ok = (value: FilterValue): Checked => ({ ok: true, value });
const fail = (expected: string): Checked => ({ ok: false, expected });

/** What a valid value of the field looks like, for messages. */
export function describeExpected(field: FieldSpec): string {
  switch (field.type) {
    case 'text':
    case 'text[]':
    case 'json':
      return 'a string';
    case 'uuid':
      return 'a UUID';
    case 'boolean':
      return 'a JSON boolean (true or false)';
    case 'number':
      return field.integer ? `an integer between ${INT4_MIN} and ${INT4_MAX}` : 'a finite number';
    case 'datetime':
      return 'an ISO-8601 date-time such as 2024-05-01T12:00:00Z';
    case 'enum':
      return `one of ${field.values.join(', ')}`;
  }
}

/** A short, JSON-ish rendering of what the client sent, for messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A string PostgreSQL can take as text: NUL is the one character it refuses. */
export const isText = (value: unknown): value is string => typeof value === 'string' && !value.includes('\u0000');

/**
 * Normalizes an ISO-8601 date or date-time to one with an explicit offset, or returns undefined.
 * A value without an offset is read as UTC, never as the database session's time zone, so the same
 * filter means the same instant on every server. The string (not a Date) is bound, keeping
 * microseconds that a JavaScript Date would drop.
 */
export function normalizeDatetime(value: string): string | undefined {
  const match = ISO_DATETIME.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, offset, offsetHour, offsetMinute] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  // Day 0 of the next month is the last day of this one.
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > daysInMonth) return undefined;
  if (hour === undefined) return `${value}T00:00:00Z`;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return undefined;
  // Real offsets span -12:00 to +14:00; PostgreSQL refuses anything past 15:59.
  if (offsetHour !== undefined && (Number(offsetHour) > 14 || Number(offsetMinute) > 59)) return undefined;
  return offset === undefined ? `${value}Z` : value;
}

/** Checks one non-null scalar against the field's type (for text[] fields: one element). */
export function checkValue(field: FieldSpec, value: unknown): Checked {
  switch (field.type) {
    case 'text':
    case 'text[]':
    case 'json':
      return isText(value) ? ok(value) : fail(describeExpected(field));
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? ok(value) : fail(describeExpected(field));
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : fail(describeExpected(field));
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail(describeExpected(field));
      const fits = !field.integer || (Number.isInteger(value) && value >= INT4_MIN && value <= INT4_MAX);
      return fits ? ok(value) : fail(describeExpected(field));
    }
    case 'datetime': {
      // GraphQL scalars may hand over a Date; REST always sends a string.
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail(describeExpected(field)) : ok(value.toISOString());
      const normalized = typeof value === 'string' ? normalizeDatetime(value) : undefined;
      return normalized === undefined ? fail(describeExpected(field)) : ok(normalized);
    }
    case 'enum':
      return typeof value === 'string' && field.values.includes(value) ? ok(value) : fail(describeExpected(field));
  }
}
