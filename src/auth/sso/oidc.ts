import * as client from 'openid-client';
import type { ProviderConfiguration } from '../../commands/auth-provider-config.js';
import { normalisedEmail, openidOptions, translateOpenidError, type SsoAdapter, type SsoChecks, type SsoIdentity } from './adapter.js';
import { SsoError } from './errors.js';
import { normaliseGroups } from '../../model/team.js';
import type { GuardedFetch } from './guarded-fetch.js';
import { allowsPlainHttp } from './http-policy.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Discover = (issuer: string, clientId: string, clientSecret: string) => Promise<client.Configuration>;

/**
 * Discovery through openid-client, plain http only where the policy allows it; every request of the
 * discovered configuration (metadata, key set, token endpoint) goes through `fetch` (the guard).
 */
export const discoverWith =
  (allowInsecureHttp: boolean, fetch: GuardedFetch): Discover =>
  (issuer, clientId, clientSecret) =>
    client.discovery(new URL(issuer), clientId, clientSecret, undefined, {
      ...openidOptions(allowsPlainHttp(issuer, allowInsecureHttp)),
      [client.customFetch]: fetch as client.CustomFetch,
    });

/** Discovered metadata is kept for an hour (adapters live as long as the provider's revision); a failure is not kept. */
const DISCOVERY_TTL_MS = 3600_000;

function cachedDiscovery(
  discover: Discover,
  configuration: { issuer: string; clientId: string; clientSecret: string },
): () => Promise<client.Configuration> {
  let cached: { at: number; value: Promise<client.Configuration> } | undefined;
  return () => {
    if (!cached || Date.now() - cached.at > DISCOVERY_TTL_MS) {
      const value = discover(configuration.issuer, configuration.clientId, configuration.clientSecret);
      const entry = { at: Date.now(), value };
      cached = entry;
      value.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value.catch((error: unknown) => {
      throw translateOpenidError(error);
    });
  };
}

async function codeGrant(
  config: client.Configuration,
  callbackUrl: URL,
  checks: SsoChecks,
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  try {
    return await client.authorizationCodeGrant(config, callbackUrl, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
  } catch (error) {
    throw translateOpenidError(error);
  }
}

function authorizationUrl(
  config: client.Configuration,
  redirectUrl: string,
  scope: string,
  checks: SsoChecks,
  extra: Record<string, string> = {},
): Promise<URL> {
  return client.calculatePKCECodeChallenge(checks.codeVerifier).then((challenge) =>
    client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUrl,
      scope,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    }),
  );
}

/**
 * Google: discovery on its issuer; offline access with consent so a refresh token comes back
 * (docs/contract.md §5: required, and used to re-check the account on each session refresh).
 */
export function googleAdapter(configuration: ProviderConfiguration<'google'>, discover: Discover): SsoAdapter {
  const config = cachedDiscovery(discover, configuration);
  return {
    async authorizationUrl(checks) {
      return authorizationUrl(await config(), configuration.redirectUrl, 'openid email profile', checks, {
        access_type: 'offline',
        prompt: 'consent',
      });
    },
    async complete(callbackUrl, checks): Promise<SsoIdentity> {
      const tokens = await codeGrant(await config(), callbackUrl, checks);
      const claims = tokens.claims();
      if (!claims) throw new SsoError('invalid_id_token', 'no ID token in the token response');
      const email = normalisedEmail(claims.email);
      const identity = {
        subject: claims.sub,
        email,
        emailVerified: email !== null && claims.email_verified === true,
        displayName: typeof claims.name === 'string' ? claims.name : null,
      };
      if (!tokens.refresh_token)
        throw new SsoError('no_refresh_token', 'Google returned no refresh token', { identifier: email ?? claims.sub });
      return { ...identity, ...groupsOf(claims, configuration.groupsClaim), refreshToken: tokens.refresh_token };
    },
    async checkRefreshToken(refreshToken) {
      try {
        await client.refreshTokenGrant(await config(), refreshToken);
      } catch (error) {
        throw translateOpenidError(error);
      }
    },
  };
}

/**
 * The groups the configured claim lists (docs/sign-in.md, teams from sign-in): none configured
 * leaves membership alone; configured but absent from the token is no groups.
 */
function groupsOf(claims: Readonly<Record<string, unknown>>, claim: string | undefined): { groups?: string[] } {
  if (claim === undefined) return {};
  const value = claims[claim];
  return { groups: normaliseGroups(Array.isArray(value) ? value : typeof value === 'string' ? [value] : []) };
}

/** The tenant (a GUID) an issuer such as `https://login.microsoftonline.com/{tenant}/v2.0` names. */
const tenantOfIssuer = (issuer: string): string | undefined =>
  new URL(issuer).pathname
    .split('/')
    .find((segment) => GUID.test(segment))
    ?.toLowerCase();

/**
 * Microsoft Entra ID: discovery on the tenant's v2.0 issuer; only tokens of that tenant (`tid`, and
 * the issuer openid-client checks) are accepted. The subject is `oid` (stable across app
 * registrations of the tenant), the address `email` — the tenant's directory vouches for it unless
 * the token says the domain is not verified (`xms_edov: false`) — or `preferred_username`.
 */
export function microsoftAdapter(configuration: ProviderConfiguration<'microsoft'>, discover: Discover): SsoAdapter {
  const config = cachedDiscovery(discover, configuration);
  return {
    async authorizationUrl(checks) {
      return authorizationUrl(await config(), configuration.redirectUrl, 'openid email profile', checks);
    },
    async complete(callbackUrl, checks): Promise<SsoIdentity> {
      const resolved = await config();
      const tokens = await codeGrant(resolved, callbackUrl, checks);
      const claims = tokens.claims();
      if (!claims) throw new SsoError('invalid_id_token', 'no ID token in the token response');
      const email = normalisedEmail(claims.email) ?? normalisedEmail(claims.preferred_username);
      const subject = typeof claims.oid === 'string' && claims.oid !== '' ? claims.oid : claims.sub;
      const expectedTenant = GUID.test(configuration.tenantId)
        ? configuration.tenantId.toLowerCase()
        : tenantOfIssuer(resolved.serverMetadata().issuer);
      const tid = typeof claims.tid === 'string' ? claims.tid.toLowerCase() : undefined;
      if (expectedTenant === undefined || tid !== expectedTenant) {
        throw new SsoError(
          'wrong_tenant',
          `token of tenant ${tid ?? '(none)'}; only ${expectedTenant ?? configuration.tenantId} is allowed`,
          { identifier: email ?? subject },
        );
      }
      return {
        subject,
        email,
        emailVerified: email !== null && claims.xms_edov !== false,
        displayName: typeof claims.name === 'string' ? claims.name : null,
        ...groupsOf(claims, configuration.groupsClaim),
      };
    },
  };
}
