import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthProviderView } from '../../src/read/auth-providers.js';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { signBackstageToken, startBackstagePortal, type BackstagePortal } from '../support/idp/backstage.js';
import { auditLog, createProvider, providerAction } from '../support/idp/sso-harness.js';

// The portal's backend.auth.keys secret, shared with the provider as privateKey (HS256).
const SHARED_SECRET = 'portal-shared-secret-of-at-least-32-chars';

for (const target of oneDatabaseTarget()) {
  describe(`Backstage tokens on ${target.name}`, () => {
    let h: HttpHarness;
    let portal: BackstagePortal;
    let provider: AuthProviderView;
    const nowSeconds = (): number => Math.floor(h.clock.peek().getTime() / 1000);

    beforeAll(async () => {
      // No refetch cooldown, so a rotation is picked up at once (production keeps jose's 30 s); the
      // portal runs on 127.0.0.1, which only SSO_ALLOW_PRIVATE_ADDRESSES lets the service fetch from.
      h = await openHttpApp(target, { env: { BACKSTAGE_JWKS_COOLDOWN_SECONDS: '0', SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      portal = await startBackstagePortal(nowSeconds);
    });
    afterAll(async () => {
      await h.close();
      await portal.close();
    });

    const call = (token: string, url = '/api/auth/me'): Promise<LightMyRequestResponse> =>
      h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

    function expect401(response: LightMyRequestResponse, detail: string): void {
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json<{ detail: string }>().detail).toBe(detail);
    }

    const hs256 = (secret: string, options: Parameters<BackstagePortal['sign']>[0] = {}): Promise<string> =>
      signBackstageToken(new TextEncoder().encode(secret), 'HS256', undefined, options, nowSeconds());

    it('refuses Backstage tokens while no backstage provider is enabled', async () => {
      expect401(await call(await portal.sign()), 'Backstage tokens are not accepted: no backstage provider is enabled');
    });

    describe('with a provider holding the JWKS URL and the shared secret', () => {
      beforeAll(async () => {
        provider = await createProvider(h, {
          name: 'Developer portal',
          type: 'backstage',
          configuration: { jwksUrl: portal.jwksUrl, privateKey: SHARED_SECRET },
        });
      });

      it('accepts an ES256 user token and creates its user on first use with role default', async () => {
        const response = await call(await portal.sign({ sub: 'user:default/jane' }));
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({
          identifier: 'user:default/jane',
          displayName: 'jane',
          provider: 'backstage',
          roles: ['default'],
          method: 'backstage',
          sessionId: null,
        });
        const again = await call(await portal.sign({ sub: 'user:default/jane' }));
        expect(again.json<{ id: string }>().id).toBe(response.json<{ id: string }>().id);
        const templates = await call(await portal.sign({ sub: 'user:default/jane' }), '/api/templates');
        expect(templates.statusCode, templates.body).toBe(200);
      });

      it('authenticates GraphQL with the same tokens, and names the reason when one is refused', async () => {
        const graphql = async (token: string) =>
          (
            await h.app.inject({
              method: 'POST',
              url: '/api/graphql',
              headers: { authorization: `Bearer ${token}` },
              payload: { query: '{ me { identifier kind } templatesCount }' },
            })
          ).json<{
            data: unknown;
            errors?: { message: string; extensions: { code: string } }[];
          }>();
        expect(await graphql(await portal.sign({ sub: 'user:default/jane' }))).toEqual({
          data: { me: { identifier: 'user:default/jane', kind: 'human' }, templatesCount: 0 },
        });
        const refused = await graphql(await portal.sign({ aud: 'someone-else' }));
        expect(refused.data).toBeNull();
        expect(refused.errors).toEqual([
          {
            message:
              'Not authenticated: Backstage token was not issued for the audience backstage. Please provide a valid bearer token in ' +
              'the Authorization header.',
            extensions: { code: 'UNAUTHENTICATED' },
          },
        ]);
      });

      it('fetches the key set once and serves later tokens from the cache', async () => {
        const before = portal.fetches;
        for (let i = 0; i < 3; i++) expect((await call(await portal.sign())).statusCode).toBe(200);
        expect(portal.fetches).toBe(before);
      });

      it('picks up a rotated key on its first unknown kid, and then refuses tokens of the retired key', async () => {
        const old = await portal.sign();
        await portal.rotate();
        const before = portal.fetches;
        expect((await call(await portal.sign())).statusCode).toBe(200);
        expect(portal.fetches).toBe(before + 1);
        expect401(await call(old), 'Backstage token signed with an unknown key');
      });

      it('refuses an expired token, one without exp, and one for another audience', async () => {
        expect401(await call(await portal.sign({ exp: nowSeconds() - 120, iat: nowSeconds() - 3600 })), 'Backstage token expired');
        expect401(await call(await portal.sign({ exp: null })), 'invalid Backstage token: exp claim');
        expect401(await call(await portal.sign({ aud: 'someone-else' })), 'Backstage token was not issued for the audience backstage');
      });

      it('refuses a subject that is not a user entity reference', async () => {
        expect401(
          await call(await portal.sign({ sub: 'component:default/billing' })),
          'invalid Backstage token: sub must be a user entity reference such as user:default/jane',
        );
      });

      it('accepts HS256 tokens signed with the shared secret, and refuses other secrets', async () => {
        const response = await call(await hs256(SHARED_SECRET, { sub: 'user:default/hs-user' }));
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ identifier: 'user:default/hs-user', method: 'backstage' });
        expect401(await call(await hs256('a-different-secret-of-at-least-32-chars!')), 'invalid Backstage token signature');
      });

      it('exchanges a user token for a service session token at POST /api/auth/backstage/token', async () => {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/auth/backstage/token',
          headers: { authorization: `Bearer ${await portal.sign({ sub: 'user:default/jane' })}` },
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        const { token, expiresAt } = response.json<{ token: string; expiresAt: string }>();
        expect(Date.parse(expiresAt)).toBeGreaterThan(h.clock.peek().getTime());
        const who = await call(token);
        expect(who.statusCode, who.body).toBe(200);
        expect(who.json()).toMatchObject({ identifier: 'user:default/jane', method: 'backstage' });
        expect(who.json<{ sessionId: string | null }>().sessionId).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('refuses an exchange without a Backstage token, and audits a refused one', async () => {
        const none = await h.app.inject({ method: 'POST', url: '/api/auth/backstage/token' });
        expect401(none, "send the Backstage user token as 'Authorization: Bearer <token>'");
        const expired = await h.app.inject({
          method: 'POST',
          url: '/api/auth/backstage/token',
          headers: { authorization: `Bearer ${await portal.sign({ exp: nowSeconds() - 60, iat: nowSeconds() - 3600 })}` },
        });
        expect401(expired, 'Backstage token expired');
        const failed = await auditLog(h, { action: 'SignInFailed' });
        expect(failed.map((e) => e.changes)).toContainEqual({
          userId: null,
          method: 'backstage',
          provider: null,
          identifier: '',
          reason: 'invalid_token',
        });
        const succeeded = await auditLog(h, { action: 'SignInSucceeded' });
        expect(succeeded.map((e) => e.changes)).toContainEqual(
          expect.objectContaining({ method: 'backstage', provider: 'backstage', identifier: 'user:default/jane' }),
        );
      });

      it("refuses a deactivated user's tokens", async () => {
        const { id } = (await call(await portal.sign({ sub: 'user:default/leaver' }))).json<{ id: string }>();
        const deactivated = await h.inject({ method: 'POST', url: `/api/users/${id}/actions/deactivate` });
        expect(deactivated.statusCode, deactivated.body).toBe(200);
        expect401(await call(await portal.sign({ sub: 'user:default/leaver' })), 'user deactivated');
      });

      it('refuses every Backstage token, and the sessions exchanged for them, once the provider is disabled', async () => {
        const exchanged = await h.app.inject({
          method: 'POST',
          url: '/api/auth/backstage/token',
          headers: { authorization: `Bearer ${await portal.sign()}` },
        });
        const { token } = exchanged.json<{ token: string }>();
        expect((await call(token)).statusCode).toBe(200);
        await providerAction(h, provider.id, 'disable');
        try {
          expect401(await call(await portal.sign()), 'Backstage tokens are not accepted: no backstage provider is enabled');
          expect401(await call(token), 'Backstage sign-in is disabled');
        } finally {
          await providerAction(h, provider.id, 'enable');
        }
      });
    });
  });
}
