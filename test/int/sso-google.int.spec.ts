import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthProviderView } from '../../src/read/auth-providers.js';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { TestBrowser } from '../support/idp/browser.js';
import { startOidcIdp, type OidcIdp } from '../support/idp/oidc.js';
import {
  auditLog,
  callbackOf,
  createProvider,
  expectRefused,
  expectSignedIn,
  me,
  providerAction,
  refusals,
} from '../support/idp/sso-harness.js';

const KEY = 'google';
const REDIRECT = callbackOf(KEY);

for (const target of oneDatabaseTarget()) {
  describe(`Google sign-in on ${target.name}`, () => {
    let h: HttpHarness;
    let idp: OidcIdp;
    let provider: AuthProviderView;
    let logs = '';

    beforeAll(async () => {
      idp = await startOidcIdp({ redirectUris: [REDIRECT] });
      idp.accounts.set('g-alice', { email: 'Alice@Example.com', email_verified: true, name: 'Alice Example' });
      idp.accounts.set('g-bob', { email: 'bob@example.com', email_verified: true, name: 'Bob' });
      idp.accounts.set('g-carol', { email: 'carol@example.com', email_verified: true, name: 'Carol' });
      idp.accounts.set('g-dave', { email: 'dave@example.com', email_verified: true, name: 'Dave' });
      idp.accounts.set('g-erin', { email: 'erin@example.com', email_verified: true, name: 'Erin' });
      idp.accounts.set('g-mallory', { email: 'mallory@evil.example.com', email_verified: true, name: 'Mallory' });
      idp.accounts.set('g-trudy', { email: 'trudy@example.com', email_verified: false, name: 'Trudy' });
      const logDestination = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          logs += chunk.toString();
          done();
        },
      });
      // The identity provider runs on 127.0.0.1, which only SSO_ALLOW_PRIVATE_ADDRESSES lets the service reach.
      h = await openHttpApp(target, { logDestination, env: { SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      provider = await createProvider(h, {
        name: 'Google',
        type: 'google',
        configuration: { clientId: idp.clientId, clientSecret: idp.clientSecret, redirectUrl: REDIRECT, issuer: idp.issuer },
        filterByDomain: ['example.com'],
      });
    });
    afterAll(async () => {
      await h.close();
      await idp.close();
    });

    /** Signs `account` in through a fresh browser; returns the browser and the callback's answer. */
    async function signIn(account: string) {
      idp.nextAccount = account;
      const browser = new TestBrowser(h.app);
      const response = await browser.signIn(KEY, REDIRECT);
      return { browser, response };
    }

    async function accessToken(browser: TestBrowser): Promise<string> {
      const refreshed = await browser.refresh();
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      return refreshed.json<{ token: string }>().token;
    }

    describe('when a user signs in for the first time', () => {
      it('sends the browser to Google with state, nonce, PKCE S256, offline access and consent, and a Lax state cookie', async () => {
        const browser = new TestBrowser(h.app);
        const { response, location } = await browser.startLogin(KEY);
        expect(response.statusCode).toBe(302);
        const url = new URL(location);
        expect(url.origin + url.pathname).toBe(`${idp.issuer}/auth`);
        const q = url.searchParams;
        expect(Object.fromEntries(q)).toMatchObject({
          client_id: idp.clientId,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid email profile',
          code_challenge_method: 'S256',
          access_type: 'offline',
          prompt: 'consent',
        });
        expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(response.headers['set-cookie']).toMatch(
          /^il_sso=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}; Path=\/api\/auth; HttpOnly; SameSite=Lax; Max-Age=600$/,
        );
        expect(response.headers['cache-control']).toBe('no-store');
      });

      it('creates the user with role default, starts a browser session and lands on the web UI', async () => {
        const { browser, response } = await signIn('g-alice');
        expectSignedIn(response);
        const token = await accessToken(browser);
        const alice = await me(h, token);
        expect(alice).toMatchObject({
          identifier: 'alice@example.com',
          email: 'alice@example.com',
          displayName: 'Alice Example',
          provider: KEY,
          roles: ['default'],
          method: 'session',
        });
        // The token request carried the configured redirect URI and the PKCE verifier.
        const last = idp.tokenRequests.filter((form) => form.get('grant_type') === 'authorization_code').at(-1);
        expect(last?.get('redirect_uri')).toBe(REDIRECT);
        expect(last?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      });

      it('matches the same person on the next sign-in by subject, not creating another user', async () => {
        const first = await me(h, await accessToken((await signIn('g-bob')).browser));
        const second = await me(h, await accessToken((await signIn('g-bob')).browser));
        expect(second.id).toBe(first.id);
      });
    });

    describe('when the answer does not belong to the sign-in this browser started', () => {
      it('refuses a callback whose state was changed', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const { location } = await browser.startLogin(KEY);
        const url = await browser.atProvider(location, REDIRECT);
        url.searchParams.set('state', 'A'.repeat(43));
        expectRefused(await browser.callback(url), 'invalid_state');
      });

      it('refuses a callback that arrives in another browser (no state cookie)', async () => {
        idp.nextAccount = 'g-erin';
        const victim = new TestBrowser(h.app);
        const { location } = await victim.startLogin(KEY);
        const url = await victim.atProvider(location, REDIRECT);
        expectRefused(await new TestBrowser(h.app).callback(url), 'invalid_state');
      });

      it('refuses a replayed callback, even with the old state cookie put back', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const { location } = await browser.startLogin(KEY);
        const saved = browser.service.get('il_sso') ?? '';
        const url = await browser.atProvider(location, REDIRECT);
        expectSignedIn(await browser.callback(url));
        expectRefused(await browser.callback(url), 'invalid_state');
        browser.service.set('il_sso', saved);
        expectRefused(await browser.callback(url), 'invalid_state');
      });

      it('refuses a used code presented again with a fresh state (Google refuses it)', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const first = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
        expectSignedIn(await browser.callback(first));
        const { location } = await browser.startLogin(KEY);
        const fresh = await browser.atProvider(location, REDIRECT);
        fresh.searchParams.set('code', first.searchParams.get('code') ?? '');
        expectRefused(await browser.callback(fresh), 'code_rejected');
      });

      it('binds the code to the PKCE verifier: redeeming it without one is refused by the provider', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const url = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
        const response = await fetch(`${idp.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: url.searchParams.get('code') ?? '',
            redirect_uri: REDIRECT,
            client_id: idp.clientId,
            client_secret: idp.clientSecret,
          }),
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
        // With the verifier only this sign-in holds, the same code does sign in.
        expectSignedIn(await browser.callback(url));
      });

      it('refuses an ID token whose nonce is not the one this sign-in sent', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const authorize = new URL((await browser.startLogin(KEY)).location);
        authorize.searchParams.set('nonce', 'an-attacker-chosen-nonce-value');
        expectRefused(await browser.callback(await browser.atProvider(authorize.href, REDIRECT)), 'invalid_id_token');
      });

      it('refuses a callback without a code, and one with neither code nor state', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const url = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
        url.searchParams.delete('code');
        expectRefused(await browser.callback(url), 'invalid_request');
        expectRefused(await new TestBrowser(h.app).inject('GET', '/api/auth/google/callback'), 'invalid_state');
      });

      it('reports a cancelled consent as access_denied', async () => {
        idp.deny = true;
        try {
          expectRefused((await signIn('g-erin')).response, 'access_denied');
        } finally {
          idp.deny = false;
        }
      });
    });

    describe("when the account does not meet the provider's rules", () => {
      it('refuses an e-mail outside the domain filter (a subdomain is outside too)', async () => {
        expectRefused((await signIn('g-mallory')).response, 'domain_not_allowed');
      });

      it('refuses an e-mail Google has not verified', async () => {
        expectRefused((await signIn('g-trudy')).response, 'email_not_verified');
      });

      it('refuses a sign-in that returns no refresh token', async () => {
        idp.issueRefreshTokens = false;
        try {
          expectRefused((await signIn('g-erin')).response, 'no_refresh_token');
        } finally {
          idp.issueRefreshTokens = true;
        }
      });

      it('refuses a deactivated user', async () => {
        const dave = await me(h, await accessToken((await signIn('g-dave')).browser));
        const deactivated = await h.inject({ method: 'POST', url: `/api/users/${dave.id}/actions/deactivate` });
        expect(deactivated.statusCode, deactivated.body).toBe(200);
        expectRefused((await signIn('g-dave')).response, 'user_deactivated');
      });
    });

    describe('when a Google session is refreshed', () => {
      it('keeps the refresh token encrypted and masked in the audit log', async () => {
        const { browser } = await signIn('g-carol');
        const sessionId = (browser.service.get('il_refresh') ?? '').split('.')[0] ?? '';
        const [started] = await auditLog(h, { action: 'SessionStarted', entityId: sessionId });
        expect(started?.changes).toMatchObject({ method: 'session', provider: KEY, upstreamRefreshToken: '********' });
        const stored = await h.services.store.readStream(`session-${sessionId}`);
        expect(String(stored[0]?.data.upstreamRefreshToken)).toMatch(/^enc:v1:/);
      });

      it('asks Google on every refresh, and ends the session once Google refuses the account', async () => {
        const { browser } = await signIn('g-carol');
        const token = await accessToken(browser);
        const before = idp.tokenRequests.length;
        await accessToken(browser);
        expect(idp.tokenRequests.slice(before).map((form) => form.get('grant_type'))).toEqual(['refresh_token']);
        idp.disabled.add('g-carol');
        try {
          const refused = await browser.refresh();
          expect(refused.statusCode).toBe(401);
          expect(refused.json<{ detail: string }>().detail).toBe(
            'the identity provider no longer accepts this account: the session has ended; sign in again',
          );
          // The refresh cookie and the UI's session hint are both cleared.
          expect([refused.headers['set-cookie']].flat()).toEqual([
            expect.stringMatching(/^il_refresh=; .*Max-Age=0/),
            expect.stringMatching(/^il_session=; Path=\/; SameSite=Strict; Max-Age=0/),
          ]);
          const after = await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
          expect(after.statusCode).toBe(401);
          expect(after.json<{ detail: string }>().detail).toBe('token revoked: the session has ended');
        } finally {
          idp.disabled.delete('g-carol');
        }
      });
    });

    describe('when the request names no browser sign-in', () => {
      it('answers 404 for an unknown provider key and for a provider of another type', async () => {
        const unknown = await h.app.inject({ method: 'GET', url: '/api/auth/nope/login' });
        expect(unknown.statusCode).toBe(404);
        expect(unknown.json<{ detail: string }>().detail).toBe('no auth provider with the key nope');
        const other = await h.app.inject({ method: 'GET', url: '/api/auth/svc_service_account/callback?code=x&state=y' });
        expect(other.statusCode).toBe(404);
        expect(other.json<{ detail: string }>().detail).toBe(
          'auth provider svc_service_account (type svc_service_account) has no browser sign-in; only github, google, microsoft ' +
            'providers do',
        );
      });
    });

    describe('while the provider is disabled', () => {
      it('refuses to start or complete a sign-in, and ends its sessions at their next refresh', async () => {
        const { browser: signedIn } = await signIn('g-erin');
        idp.nextAccount = 'g-erin';
        const inFlight = new TestBrowser(h.app);
        const url = await inFlight.atProvider((await inFlight.startLogin(KEY)).location, REDIRECT);
        await providerAction(h, provider.id, 'disable');
        try {
          const start = await new TestBrowser(h.app).startLogin(KEY);
          expectRefused(start.response, 'provider_disabled');
          expectRefused(await inFlight.callback(url), 'provider_disabled');
          const refused = await signedIn.refresh();
          expect(refused.statusCode).toBe(401);
          expect(refused.json<{ detail: string }>().detail).toBe('sign-in through google is disabled: the session has ended');
        } finally {
          await providerAction(h, provider.id, 'enable');
        }
      });
    });

    describe('the audit trail', () => {
      it('records each success with its session, and each refusal with its reason', async () => {
        const succeeded = (await auditLog(h, { action: 'SignInSucceeded' })).filter(
          (e) => (e.changes as { provider?: string }).provider === KEY,
        );
        expect(succeeded.length).toBeGreaterThan(0);
        expect(succeeded[0]?.changes).toMatchObject({ method: 'session', provider: KEY, identifier: 'alice@example.com' });
        const reasons = await refusals(h, KEY);
        expect(new Set(reasons)).toEqual(
          new Set([
            'invalid_state',
            'code_rejected',
            'invalid_id_token',
            'invalid_request',
            'access_denied',
            'domain_not_allowed',
            'email_not_verified',
            'no_refresh_token',
            'user_deactivated',
            'provider_disabled',
          ]),
        );
        const domain = (await auditLog(h, { action: 'SignInFailed' })).find(
          (e) => (e.changes as { reason?: string }).reason === 'domain_not_allowed',
        );
        expect(domain?.changes).toEqual({
          userId: null,
          method: 'session',
          provider: KEY,
          identifier: 'mallory@evil.example.com',
          reason: 'domain_not_allowed',
        });
        expect(domain?.actorId).toBeNull();
      });
    });

    describe('secrets', () => {
      it('never logs the code, the state, the nonce, the verifier, the refresh cookie or the client secret', async () => {
        idp.nextAccount = 'g-erin';
        const browser = new TestBrowser(h.app);
        const { location } = await browser.startLogin(KEY);
        const url = await browser.atProvider(location, REDIRECT);
        expectSignedIn(await browser.callback(url));
        const refreshed = await browser.refresh();
        expect(refreshed.statusCode).toBe(200);
        const authorize = new URL(location).searchParams;
        const secrets = [
          url.searchParams.get('code'),
          url.searchParams.get('state'),
          authorize.get('nonce'),
          authorize.get('code_challenge'),
          browser.service.get('il_refresh'),
          refreshed.json<{ token: string }>().token,
          idp.clientSecret,
        ];
        expect(logs).toContain('/api/auth/google/callback?code=[redacted]&state=[redacted]');
        for (const secret of secrets) {
          expect(secret).toBeTruthy();
          expect(logs).not.toContain(secret);
        }
      });
    });
  });
}
