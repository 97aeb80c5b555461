import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { AuthProviderView } from '../../../src/read/auth-providers.js';
import type { AuditLogView } from '../../../src/http/routes/audit-log.js';
import type { HttpHarness } from '../http-app.js';

/** The service's public address in the harness (BASE_URL defaults to http://localhost:{PORT}). */
export const BASE = 'http://localhost:8080';

export const callbackOf = (key: string): string => `${BASE}/api/auth/${key}/callback`;

/** Creates a provider as admin (201 asserted). */
export async function createProvider(h: HttpHarness, payload: Record<string, unknown>): Promise<AuthProviderView> {
  const response = await h.inject({ method: 'POST', url: '/api/auth_providers', payload: { enabled: true, ...payload } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<AuthProviderView>();
}

export async function providerAction(h: HttpHarness, id: string, action: 'enable' | 'disable'): Promise<void> {
  const response = await h.inject({ method: 'POST', url: `/api/auth_providers/${id}/actions/${action}` });
  expect(response.statusCode, response.body).toBe(200);
}

/** Asserts the callback's answer: a 302 to the login page with this error code, and no session cookie. */
export function expectRefused(response: LightMyRequestResponse, code: string): void {
  expect(response.statusCode, response.body).toBe(302);
  expect(response.headers.location).toBe(`${BASE}/login?error=${code}`);
  const cookies = [response.headers['set-cookie'] ?? []].flat();
  expect(cookies.some((c) => c.startsWith('il_refresh='))).toBe(false);
}

/** Asserts a signed-in callback: a 302 to the web UI with the refresh cookie, the state cookie cleared. */
export function expectSignedIn(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(302);
  expect(response.headers.location).toBe(`${BASE}/`);
  const cookies = [response.headers['set-cookie'] ?? []].flat();
  expect(cookies).toContainEqual(
    expect.stringMatching(/^il_refresh=[0-9a-f-]{36}\.[A-Za-z0-9_-]+; Path=\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=\d+$/),
  );
  expect(cookies).toContainEqual('il_sso=; Path=/api/auth; HttpOnly; SameSite=Lax; Max-Age=0');
}

/** `GET /api/auth/me` with a token: the caller. */
export async function me(
  h: HttpHarness,
  token: string,
): Promise<{
  id: string;
  identifier: string;
  email: string | null;
  displayName: string | null;
  provider: string | null;
  roles: string[];
  method: string;
}> {
  const response = await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** The audit log as admin, once the audit projection has caught up with every event so far. */
export async function auditLog(h: HttpHarness, filter: Record<string, unknown>): Promise<AuditLogView[]> {
  const head = await h.services.store.lastPosition();
  const response = await h.inject({
    method: 'GET',
    url: '/api/audit_log',
    query: { filter: JSON.stringify(filter), range: JSON.stringify([0, 1000]), sort: JSON.stringify(['at', 'ASC']) },
    headers: head === undefined ? {} : { 'x-min-position': String(head) },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<AuditLogView[]>();
}

/** The `SignInFailed` reasons recorded for a provider key, oldest first. */
export async function refusals(h: HttpHarness, provider: string): Promise<string[]> {
  const entries = await auditLog(h, { action: 'SignInFailed' });
  return entries
    .filter((e) => (e.changes as { provider?: string }).provider === provider)
    .map((e) => String((e.changes as { reason?: string }).reason));
}
