import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoFromUtcText } from '../../src/graphql/timestamps.js';

// What the DateTime scalar wrote before: node-postgres' own parse of the UTC text, then toISOString.
const parsedByPg = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const viaDate = (utcText: string): string => parsedByPg(`${utcText}+00`).toISOString();

describe('isoFromUtcText: PostgreSQL UTC text to Date#toISOString form without a Date', () => {
  it('writes what parsing into a Date and formatting it wrote, for every fraction length', () => {
    for (const text of [
      '2026-11-21 20:45:24',
      '2026-11-21 20:45:24.8',
      '2026-11-21 20:45:24.85',
      '2026-11-21 20:45:24.855',
      '2026-11-21 20:45:24.8551',
      '2026-11-21 20:45:24.85512',
      '2026-11-21 20:45:24.855123',
      '0001-01-01 00:00:00',
      '1970-01-01 00:00:00.000001',
      '9999-12-31 23:59:59.999999',
    ]) {
      expect(isoFromUtcText(text), text).toBe(viaDate(text));
    }
  });

  it('truncates microseconds to milliseconds as node-postgres does, over a spread of values', () => {
    // Every 997th microsecond of a second, with PostgreSQL's trailing zeros dropped.
    for (let micros = 0; micros < 1_000_000; micros += 997) {
      const fraction = String(micros).padStart(6, '0').replace(/0+$/, '');
      const text = `2026-02-28 23:59:59${fraction ? `.${fraction}` : ''}`;
      expect(isoFromUtcText(text), text).toBe(viaDate(text));
    }
  });

  it('hands years past 9999 and BC years to node-postgres (a Date), and keeps null and infinity as before', () => {
    const far = isoFromUtcText('12026-01-02 03:04:05.6');
    expect(far).toBeInstanceOf(Date);
    expect((far as Date).toISOString()).toBe('+012026-01-02T03:04:05.600Z');
    const bc = isoFromUtcText('0044-03-15 12:00:00 BC');
    expect(bc).toBeInstanceOf(Date);
    expect((bc as Date).getUTCFullYear()).toBe(-43);
    expect((isoFromUtcText('0044-03-15 12:00:00.5 BC') as Date).getUTCMilliseconds()).toBe(500);
    expect(isoFromUtcText('infinity')).toBe(Number.POSITIVE_INFINITY);
    expect(isoFromUtcText('-infinity')).toBe(Number.NEGATIVE_INFINITY);
    expect(isoFromUtcText(null)).toBeNull();
  });
});
