import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_REGISTRY, isRegisteredCode, type ErrorCode } from '../../src/errors.js';
import { unregisteredCodes } from '../support/error-codes.js';

/** The codes published so far: a code may be added, never renamed or removed. */
const PUBLISHED: readonly string[] = [
  'VALIDATION',
  'UNPROCESSABLE',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'LIMIT_EXCEEDED',
  'POSITION_AHEAD',
  'INVALID_REFERENCE',
  'INVALID_VARIABLES',
  'IDEMPOTENCY_KEY_REUSED',
  'EXPORT_TOO_LARGE',
  'ALREADY_EXISTS',
  'NOT_UNIQUE',
  'ILLEGAL_TRANSITION',
  'ENTITY_BUSY',
  'STILL_REFERENCED',
  'LINEAGE_CONFLICT',
  'CONCURRENT_MODIFICATION',
  'LAST_SUPER_ACCESS',
  'RUN_ENDED',
  'IDEMPOTENCY_IN_FLIGHT',
  'IDEMPOTENT_ANSWER_WITHHELD',
  'FEATURE_DISABLED',
  'READ_MODEL_LAGGING',
  'READ_MODEL_STOPPED',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_SERVER_ERROR',
];

/** The rows of docs/errors.md's table: code → status. */
function documentedCodes(): Map<string, number> {
  const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)];
  return new Map(rows.map(([, code, status]) => [code ?? '', Number(status)]));
}

describe('the error-code registry', () => {
  const codes = Object.keys(ERROR_REGISTRY) as ErrorCode[];

  it('keeps every published code', () => {
    expect(PUBLISHED.filter((code) => !isRegisteredCode(code))).toEqual([]);
  });

  it('is documented in docs/errors.md, code for code and status for status', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
    for (const code of codes) expect({ code, status: documented.get(code) }).toEqual({ code, status: ERROR_REGISTRY[code].status });
  });

  it('refines only categories, each its own code, with the status of its category unless HTTP has a finer one', () => {
    for (const code of codes) {
      const { category, status } = ERROR_REGISTRY[code];
      expect(ERROR_REGISTRY[category].category).toBe(category);
      if (![405, 408, 413, 415, 431].includes(status)) expect({ code, status }).toEqual({ code, status: ERROR_REGISTRY[category].status });
    }
  });

  it('names codes in upper snake case', () => {
    for (const code of codes) expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
  });
});

describe('the answered-code check every HTTP harness runs', () => {
  it('passes registered codes in problems and GraphQL errors', () => {
    expect(unregisteredCodes('application/problem+json', JSON.stringify({ code: 'NOT_UNIQUE' }))).toEqual([]);
    expect(
      unregisteredCodes('application/json; charset=utf-8', JSON.stringify({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] })),
    ).toEqual([]);
  });

  it('reports an unregistered code, or none at all, wherever it is answered', () => {
    expect(unregisteredCodes('application/problem+json', JSON.stringify({ code: 'NAME_CLASH' }))).toEqual(['NAME_CLASH']);
    expect(unregisteredCodes('application/problem+json', JSON.stringify({ detail: 'no code' }))).toEqual(['undefined']);
    expect(
      unregisteredCodes(
        'application/graphql-response+json',
        JSON.stringify({ errors: [{ message: 'x' }, { extensions: { code: 'MER_ERR_X' } }] }),
      ),
    ).toEqual(['undefined', 'MER_ERR_X']);
  });

  it('ignores answers that are not JSON', () => {
    expect(unregisteredCodes('text/csv', 'a,b')).toEqual([]);
    expect(unregisteredCodes('application/json', 'not json')).toEqual([]);
  });
});
