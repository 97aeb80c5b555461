import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';

/**
 * Timestamps on GraphQL's read path skip the Date object. node-postgres parses every timestamptz
 * into a Date (a regular expression per value), and the DateTime scalar turns it back into text:
 * together an eighth of the service's CPU on a 100-row page (docs/benchmarks.md, "GraphQL throughput"). The
 * loader selects them as UTC text instead (`utcText`), and `isoFromUtcText` cuts that text into the
 * very string `Date#toISOString` would have written.
 */

/** `(<column> AT TIME ZONE 'UTC')::text`: `2026-11-21 20:45:24.855123`, whatever the session's time zone. */
export const utcText = (reference: string): RawBuilder<string> => sql<string>`(${sql.ref(reference)} at time zone 'UTC')::text`;

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => unknown;

const DASH = 45;
const SPACE = 32;
const DOT = 46;
const NINE = 57;

/**
 * The ISO-8601 text (`2026-11-21T20:45:24.855Z`) of a `utcText` value. Microseconds are truncated
 * to milliseconds, as node-postgres' own parser does, so GraphQL and REST show the same instant.
 * Years past 9999, BC years and ±infinity (which the service never writes) go through that parser,
 * as before: a Date, or a number the DateTime scalar refuses. Null stays null.
 */
export function isoFromUtcText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const length = value.length;
  // `YYYY-MM-DD HH:MM:SS`, then `.` and 1 to 6 fraction digits when the fraction is not zero (BC years end in ` BC`).
  const shaped = length === 19 || (length >= 21 && length <= 26 && value.charCodeAt(19) === DOT && value.charCodeAt(length - 1) <= NINE);
  if (shaped && value.charCodeAt(4) === DASH && value.charCodeAt(10) === SPACE) {
    const millis = length === 19 ? '000' : value.slice(20, 23).padEnd(3, '0');
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${millis}Z`;
  }
  if (value.endsWith('infinity')) return parseTimestamptz(value);
  return parseTimestamptz(value.endsWith(' BC') ? `${value.slice(0, -3)}+00 BC` : `${value}+00`);
}
