import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { TestBrowser } from '../support/idp/browser.js';
import { startOidcIdp, type OidcIdp } from '../support/idp/oidc.js';
import { callbackOf, createProvider, expectRefused, expectSignedIn, me, refusals } from '../support/idp/sso-harness.js';

const TENANT = '3f2a6c1e-8d4b-4e7a-9c15-2b8e6f0d4a71';
const OTHER_TENANT = '9b1d7e3c-5a2f-4c8e-b6d0-1e4f7a9c3b52';
const KEY = 'microsoft';
const OTHER_KEY = 'microsoft-other';
const REDIRECT = callbackOf(KEY);
const OTHER_REDIRECT = callbackOf(OTHER_KEY);

for (const target of oneDatabaseTarget()) {
  describe(`Microsoft sign-in on ${target.name}`, () => {
    let h: HttpHarness;
    let idp: OidcIdp;
    let providerId: string;

    beforeAll(async () => {
      // A tenant-shaped issuer, as Entra ID's v2.0 endpoint: {base}/{tenant}/v2.0.
      idp = await startOidcIdp({
        path: `/${TENANT}/v2.0`,
        redirectUris: [REDIRECT, OTHER_REDIRECT],
        extraClaims: ['tid', 'oid', 'xms_edov', 'groups'],
      });
      const member = { tid: TENANT, name: 'Alice Contoso' };
      idp.accounts.set('pairwise-alice', {
        ...member,
        oid: 'oid-alice',
        email: 'alice@contoso.com',
        preferred_username: 'alice@contoso.com',
      });
      idp.accounts.set('pairwise-upn', { ...member, oid: 'oid-upn', preferred_username: 'Upn.Only@Contoso.com', name: 'Upn Only' });
      idp.accounts.set('pairwise-guest', { tid: OTHER_TENANT, oid: 'oid-guest', email: 'guest@contoso.com', name: 'Guest' });
      idp.accounts.set('pairwise-fabrikam', { ...member, oid: 'oid-fab', email: 'someone@fabrikam.com' });
      idp.accounts.set('pairwise-unverified', { ...member, oid: 'oid-unverified', email: 'claimed@contoso.com', xms_edov: false });
      // The identity provider runs on 127.0.0.1, which only SSO_ALLOW_PRIVATE_ADDRESSES lets the service reach.
      h = await openHttpApp(target, { env: { SSO_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      const configuration = {
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        redirectUrl: REDIRECT,
        tenantId: TENANT,
        issuer: idp.issuer,
      };
      providerId = (
        await createProvider(h, { name: 'Contoso', key: KEY, type: 'microsoft', configuration, filterByDomain: ['contoso.com'] })
      ).id;
      // Configured for another tenant, but pointed at this issuer: its tokens are the wrong tenant's.
      await createProvider(h, {
        name: 'Other tenant',
        key: OTHER_KEY,
        type: 'microsoft',
        configuration: { ...configuration, redirectUrl: OTHER_REDIRECT, tenantId: OTHER_TENANT },
      });
    });
    afterAll(async () => {
      await h.close();
      await idp.close();
    });

    async function signIn(account: string, key = KEY, redirect = REDIRECT) {
      idp.nextAccount = account;
      const browser = new TestBrowser(h.app);
      return { browser, response: await browser.signIn(key, redirect) };
    }

    const subjectOf = async (id: string): Promise<string | null> =>
      (await h.services.db.selectFrom('users').select('subject').where('id', '=', id).executeTakeFirstOrThrow()).subject;

    it("sends the browser to the tenant's authorize endpoint with state, nonce and PKCE S256", async () => {
      const { location } = await new TestBrowser(h.app).startLogin(KEY);
      const url = new URL(location);
      expect(`${url.origin}${url.pathname}`).toBe(`${idp.issuer}/auth`);
      expect(url.searchParams.get('scope')).toBe('openid email profile');
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('nonce')).toBeTruthy();
      expect(url.searchParams.get('state')).toBeTruthy();
    });

    it('signs a member of the tenant in, known by the object id (oid), with role default', async () => {
      const { browser, response } = await signIn('pairwise-alice');
      expectSignedIn(response);
      const refreshed = await browser.refresh();
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      const alice = await me(h, refreshed.json<{ token: string }>().token);
      expect(alice).toMatchObject({
        identifier: 'alice@contoso.com',
        email: 'alice@contoso.com',
        provider: KEY,
        roles: ['default'],
        displayName: 'Alice Contoso',
      });
      expect(await subjectOf(alice.id)).toBe('oid-alice');
    });

    it('takes the address from preferred_username when the token carries no email claim', async () => {
      const { browser, response } = await signIn('pairwise-upn');
      expectSignedIn(response);
      const upn = await me(h, (await browser.refresh()).json<{ token: string }>().token);
      expect(upn.email).toBe('upn.only@contoso.com');
    });

    it('refuses a token of another tenant (tid), even with an address in the allowed domain', async () => {
      expectRefused((await signIn('pairwise-guest')).response, 'wrong_tenant');
    });

    it('refuses every token when the provider is configured for another tenant than the issuer serves', async () => {
      expectRefused((await signIn('pairwise-alice', OTHER_KEY, OTHER_REDIRECT)).response, 'wrong_tenant');
    });

    it('refuses an address outside the domain filter', async () => {
      expectRefused((await signIn('pairwise-fabrikam')).response, 'domain_not_allowed');
    });

    it('refuses an address whose domain the tenant has not verified (xms_edov false)', async () => {
      expectRefused((await signIn('pairwise-unverified')).response, 'email_not_verified');
    });

    it('records the refusals with their reasons', async () => {
      expect(await refusals(h, KEY)).toEqual(['wrong_tenant', 'domain_not_allowed', 'email_not_verified']);
      expect(await refusals(h, OTHER_KEY)).toEqual(['wrong_tenant']);
    });

    it('makes the user a member of the teams naming a value of the configured groups claim, at each sign-in', async () => {
      const patched = await h.inject({
        method: 'PATCH',
        url: `/api/auth_providers/${providerId}`,
        payload: {
          configuration: {
            clientId: idp.clientId,
            clientSecret: '********',
            redirectUrl: REDIRECT,
            tenantId: TENANT,
            issuer: idp.issuer,
            groupsClaim: 'groups',
          },
        },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const team = await h.inject({
        method: 'POST',
        url: '/api/teams',
        payload: { name: `payments-${target.name}`, groupReferences: ['Payments'] },
      });
      expect(team.statusCode, team.body).toBe(201);
      const teamId = team.json<{ id: string }>().id;
      const teamsOf = async (account: string) => {
        const { browser, response } = await signIn(account);
        expectSignedIn(response);
        const token = (await browser.refresh()).json<{ token: string }>().token;
        return (await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } })).json<{
          teams: { id: string; role: string }[];
        }>().teams;
      };
      idp.accounts.set('pairwise-grouped', {
        tid: TENANT,
        oid: 'oid-grouped',
        email: 'grouped@contoso.com',
        name: 'Grouped',
        groups: ['payments', 'Platform'],
      });
      expect(await teamsOf('pairwise-grouped')).toEqual([{ id: teamId, name: `payments-${target.name}`, role: 'member' }]);
      // Out of the group at the identity provider: out of the team at the next sign-in.
      idp.accounts.set('pairwise-grouped', {
        tid: TENANT,
        oid: 'oid-grouped',
        email: 'grouped@contoso.com',
        name: 'Grouped',
        groups: ['platform'],
      });
      expect(await teamsOf('pairwise-grouped')).toEqual([]);
    });
  });
}
