import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { startBackstagePortal, type BackstagePortal } from '../support/idp/backstage.js';
import { createProvider } from '../support/idp/sso-harness.js';

// The attack audit's L8: a super could point a Backstage jwksUrl at internal addresses, fetched when
// anyone presented a token with an unknown kid. Private, loopback and link-local addresses are now
// refused unless SSO_ALLOW_PRIVATE_ADDRESSES=true: written ones when the provider is saved, host names on
// the addresses they resolve to when the key set is fetched.

interface Problem {
  readonly code: string;
  readonly detail: string;
  readonly errors?: readonly { field: string; message: string }[];
}

const REFUSED_FIELD = {
  field: 'configuration.jwksUrl',
  message:
    'is a private, loopback or link-local address, which the service does not connect to (set SSO_ALLOW_PRIVATE_ADDRESSES=true to ' +
    'allow it)',
};

for (const target of databaseTargets()) {
  describe(`L8: Backstage jwksUrl and private addresses, on ${target.name}`, () => {
    let h: HttpHarness;
    let portal: BackstagePortal;
    const nowSeconds = (): number => Math.floor(h.clock.peek().getTime() / 1000);
    const providerBody = (jwksUrl: string) => ({
      name: `Portal ${jwksUrl}`,
      key: `portal-${Math.random().toString(36).slice(2, 8)}`,
      type: 'backstage',
      configuration: { jwksUrl },
    });

    beforeAll(async () => {
      h = await openHttpApp(target);
      portal = await startBackstagePortal(nowSeconds);
    });
    afterAll(async () => {
      await h.close();
      await portal.close();
    });

    it('refuses to save a jwksUrl written as a loopback, link-local or private address', async () => {
      const port = new URL(portal.jwksUrl).port;
      for (const url of [
        portal.jwksUrl,
        `http://[::1]:${port}/jwks`,
        'http://169.254.169.254/latest/meta-data/',
        'http://127.0.0.1:5432/',
        'http://10.0.0.7/jwks',
      ]) {
        const response = await h.inject({ method: 'POST', url: '/api/auth_providers', payload: providerBody(url) });
        expect(response.statusCode, url).toBe(400);
        expect(response.json<Problem>().errors).toEqual([REFUSED_FIELD]);
      }
    });

    it('refuses to change a saved jwksUrl to one', async () => {
      const provider = await createProvider(h, providerBody('https://portal.example.com/api/auth/.well-known/jwks.json'));
      const response = await h.inject({
        method: 'PATCH',
        url: `/api/auth_providers/${provider.id}`,
        payload: { configuration: { jwksUrl: 'http://169.254.169.254/keys' } },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json<Problem>().errors).toEqual([REFUSED_FIELD]);
      // Deleted again, so the next test's provider is the only one a token is tried against.
      expect((await h.inject({ method: 'DELETE', url: `/api/auth_providers/${provider.id}` })).statusCode).toBe(204);
    });

    it('refuses, when a token comes, to fetch from a host name that resolves to a loopback address: nothing reaches it', async () => {
      // localhost passes the saved-URL check (a name) and resolves to 127.0.0.1 / ::1 when fetched.
      const provider = await createProvider(h, providerBody(portal.jwksUrl.replace('127.0.0.1', 'localhost')));
      const response: LightMyRequestResponse = await h.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${await portal.sign()}` },
      });
      expect(response.statusCode, response.body).toBe(503);
      expect(response.json<Problem>().detail).toMatch(
        /^the developer portal's JWKS is not fetched from a private, loopback or link-local address \((127\.0\.0\.1|::1)\); an administrator may allow it with SSO_ALLOW_PRIVATE_ADDRESSES=true$/,
      );
      expect(portal.fetches).toBe(0);
      expect((await h.inject({ method: 'DELETE', url: `/api/auth_providers/${provider.id}` })).statusCode).toBe(204);
    });
  });
}

const [pglite] = databaseTargets();
if (pglite) {
  // The setting is not about the store: one app on PGlite.
  describe('L8: SSO_ALLOW_PRIVATE_ADDRESSES=true lets an operator use a portal on an internal address', () => {
    let h: HttpHarness;
    let portal: BackstagePortal;
    beforeAll(async () => {
      h = await openHttpApp(pglite, { env: { SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      portal = await startBackstagePortal(() => Math.floor(h.clock.peek().getTime() / 1000));
    });
    afterAll(async () => {
      await h.close();
      await portal.close();
    });

    it('saves the address and verifies tokens against the key set fetched from it', async () => {
      await createProvider(h, { name: 'Internal portal', type: 'backstage', configuration: { jwksUrl: portal.jwksUrl } });
      const response = await h.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${await portal.sign({ sub: 'user:default/internal' })}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(portal.fetches).toBe(1);
    });
  });
}
