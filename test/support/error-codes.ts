import { isRegisteredCode } from '../../src/errors.js';

/**
 * The error codes in one answer that the registry (src/errors.ts) does not hold: a REST problem's
 * `code`, each GraphQL error's `extensions.code`. Every harness runs every answer through it, so an
 * unregistered code fails the test that provoked it.
 */
export function unregisteredCodes(contentType: string | undefined, body: string): string[] {
  if (!contentType || !/json/.test(contentType) || body === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const answer = parsed as { code?: unknown; errors?: unknown };
  const codes: unknown[] = [];
  if (contentType.startsWith('application/problem+json')) codes.push(answer.code);
  else if (Array.isArray(answer.errors)) {
    for (const error of answer.errors as { extensions?: { code?: unknown } }[]) codes.push(error.extensions?.code);
  }
  return codes.filter((code) => !isRegisteredCode(code)).map(String);
}
