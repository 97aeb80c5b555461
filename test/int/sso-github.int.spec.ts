import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { TestBrowser } from '../support/idp/browser.js';
import { startGithubIdp, type GithubIdp } from '../support/idp/github.js';
import { auditLog, callbackOf, createProvider, expectRefused, expectSignedIn, me, refusals } from '../support/idp/sso-harness.js';

const KEY = 'github';
const REDIRECT = callbackOf(KEY);

for (const target of oneDatabaseTarget()) {
  describe(`GitHub sign-in on ${target.name}`, () => {
    let h: HttpHarness;
    let gh: GithubIdp;

    beforeAll(async () => {
      gh = await startGithubIdp();
      gh.accounts.set('octo', {
        id: 1001,
        login: 'octo',
        name: 'Octo Cat',
        emails: [
          { email: 'octo@personal.test', primary: false, verified: true },
          { email: 'Octo@Example.org', primary: true, verified: true },
        ],
      });
      // A verified address in the domain exists, but the primary one is not verified: refused.
      gh.accounts.set('sneaky', {
        id: 1002,
        login: 'sneaky',
        name: null,
        emails: [
          { email: 'sneaky@example.org', primary: false, verified: true },
          { email: 'ceo@example.org', primary: true, verified: false },
        ],
      });
      gh.accounts.set('outsider', {
        id: 1003,
        login: 'outsider',
        name: null,
        emails: [{ email: 'out@elsewhere.org', primary: true, verified: true }],
      });
      // The identity provider runs on 127.0.0.1, which only SSO_ALLOW_PRIVATE_ADDRESSES lets the service reach.
      h = await openHttpApp(target, { env: { SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      await createProvider(h, {
        name: 'GitHub Enterprise',
        type: 'github',
        configuration: {
          clientId: gh.clientId,
          clientSecret: gh.clientSecret,
          redirectUrl: REDIRECT,
          authorizeUrl: gh.authorizeUrl,
          tokenUrl: gh.tokenUrl,
          apiUrl: gh.apiUrl,
        },
        filterByDomain: ['example.org'],
      });
    });
    afterAll(async () => {
      await h.close();
      await gh.close();
    });

    async function signIn(login: string) {
      gh.nextLogin = login;
      const browser = new TestBrowser(h.app);
      return { browser, response: await browser.signIn(KEY, REDIRECT) };
    }

    async function tokenOf(browser: TestBrowser): Promise<string> {
      const refreshed = await browser.refresh();
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      return refreshed.json<{ token: string }>().token;
    }

    it('sends the browser to the configured authorize URL with the scopes, state and PKCE S256', async () => {
      const { location } = await new TestBrowser(h.app).startLogin(KEY);
      const url = new URL(location);
      expect(`${url.origin}${url.pathname}`).toBe(gh.authorizeUrl);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        client_id: gh.clientId,
        redirect_uri: REDIRECT,
        scope: 'read:user user:email',
        code_challenge_method: 'S256',
      });
      expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.has('nonce')).toBe(false);
    });

    it('signs the user in with the verified primary e-mail and the numeric id as subject', async () => {
      const { browser, response } = await signIn('octo');
      expectSignedIn(response);
      const octo = await me(h, await tokenOf(browser));
      expect(octo).toMatchObject({
        identifier: 'octo@example.org',
        email: 'octo@example.org',
        displayName: 'Octo Cat',
        provider: KEY,
        roles: ['default'],
      });
      const row = await h.services.db.selectFrom('users').select(['subject', 'kind']).where('id', '=', octo.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ subject: '1001', kind: 'human' });
    });

    it('keeps matching the user by id when the login and name change at GitHub', async () => {
      const before = await me(h, await tokenOf((await signIn('octo')).browser));
      gh.accounts.set('octo', {
        id: 1001,
        login: 'octo-renamed',
        name: 'Octo Renamed',
        emails: [{ email: 'octo@example.org', primary: true, verified: true }],
      });
      const after = await me(h, await tokenOf((await signIn('octo')).browser));
      expect(after.id).toBe(before.id);
      expect(after.displayName).toBe('Octo Renamed');
    });

    it('refuses a code used twice (GitHub answers bad_verification_code with HTTP 200)', async () => {
      gh.nextLogin = 'octo';
      const browser = new TestBrowser(h.app);
      const first = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
      expectSignedIn(await browser.callback(first));
      const fresh = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
      fresh.searchParams.set('code', first.searchParams.get('code') ?? '');
      expectRefused(await browser.callback(fresh), 'code_rejected');
    });

    it('refuses a callback whose state is not the one of this browser', async () => {
      gh.nextLogin = 'octo';
      const browser = new TestBrowser(h.app);
      const url = await browser.atProvider((await browser.startLogin(KEY)).location, REDIRECT);
      url.searchParams.set('state', 'B'.repeat(43));
      expectRefused(await browser.callback(url), 'invalid_state');
    });

    it('refuses an account whose primary e-mail is not verified', async () => {
      expectRefused((await signIn('sneaky')).response, 'email_not_verified');
    });

    it('refuses a primary e-mail outside the domain filter', async () => {
      expectRefused((await signIn('outsider')).response, 'domain_not_allowed');
    });

    it('reports a refused authorization as access_denied', async () => {
      gh.deny = true;
      try {
        expectRefused((await signIn('octo')).response, 'access_denied');
      } finally {
        gh.deny = false;
      }
    });

    it('records the successes and the refusals with their reasons', async () => {
      expect(await refusals(h, KEY)).toEqual([
        'code_rejected',
        'invalid_state',
        'email_not_verified',
        'domain_not_allowed',
        'access_denied',
      ]);
      const succeeded = (await auditLog(h, { action: 'SignInSucceeded' })).filter(
        (e) => (e.changes as { provider?: string }).provider === KEY,
      );
      expect(succeeded.map((e) => (e.changes as { identifier?: string }).identifier)).toEqual([
        'octo@example.org',
        'octo@example.org',
        'octo@example.org',
        'octo@example.org',
      ]);
    });
  });

  describe(`GitHub URLs on a private address on ${target.name}, without SSO_ALLOW_PRIVATE_ADDRESSES`, () => {
    let h: HttpHarness;
    let gh: GithubIdp;

    beforeAll(async () => {
      gh = await startGithubIdp();
      gh.accounts.set('octo', {
        id: 1001,
        login: 'octo',
        name: null,
        emails: [{ email: 'octo@example.org', primary: true, verified: true }],
      });
      h = await openHttpApp(target);
    });
    afterAll(async () => {
      await h.close();
      await gh.close();
    });

    it('refuses a private address written as one when the provider is saved', async () => {
      const refused = await h.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: {
          name: 'GitHub',
          key: 'gh-literal',
          type: 'github',
          configuration: {
            clientId: gh.clientId,
            clientSecret: gh.clientSecret,
            redirectUrl: callbackOf('gh-literal'),
            tokenUrl: gh.tokenUrl,
            apiUrl: gh.apiUrl,
          },
        },
      });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual([
        'configuration.tokenUrl',
        'configuration.apiUrl',
      ]);
    });

    it('never sends the client secret to a token URL whose name resolves to loopback: the sign-in fails, the provider is not reached', async () => {
      const viaName = (url: string): string => url.replace('127.0.0.1', 'localhost');
      await createProvider(h, {
        name: 'GitHub on a name',
        type: 'github',
        configuration: {
          clientId: gh.clientId,
          clientSecret: gh.clientSecret,
          redirectUrl: REDIRECT,
          authorizeUrl: gh.authorizeUrl,
          tokenUrl: viaName(gh.tokenUrl),
          apiUrl: viaName(gh.apiUrl),
        },
      });
      gh.nextLogin = 'octo';
      expectRefused(await new TestBrowser(h.app).signIn(KEY, REDIRECT), 'provider_error');
      expect(gh.tokenRequests).toBe(0);
      expect(await refusals(h, KEY)).toEqual(['provider_error']);
    });
  });
}
