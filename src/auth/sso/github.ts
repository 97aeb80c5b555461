import * as client from 'openid-client';
import { z } from 'zod';
import { GITHUB_DEFAULT_ENDPOINTS, type ProviderConfiguration } from '../../commands/auth-provider-config.js';
import {
  normalisedEmail,
  openidOptions,
  privateAddressError,
  privateAddressIn,
  translateOpenidError,
  type SsoAdapter,
  type SsoIdentity,
} from './adapter.js';
import { SsoError } from './errors.js';
import type { GuardedFetch, GuardedRequest } from './guarded-fetch.js';
import { allowsPlainHttp } from './http-policy.js';

/** GitHub's OAuth app scopes: the profile and the e-mail addresses (to find the verified primary). */
export const GITHUB_SCOPES = 'read:user user:email';

const API_TIMEOUT_MS = 10_000;

const githubUser = z.object({ id: z.number().int(), login: z.string(), name: z.string().nullable().optional() });
const githubEmails = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }));

/**
 * GitHub answers token-endpoint errors (a used or wrong code, a wrong verifier) with HTTP 200 and an
 * `error` member; OAuth clients expect a 4xx. Restated as 400 so openid-client reports the OAuth error.
 */
const githubFetch =
  (fetch: GuardedFetch): client.CustomFetch =>
  async (url, options) => {
    const response = await fetch(url, options as GuardedRequest);
    if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const body = (await response.json()) as Record<string, unknown>;
    return new Response(JSON.stringify(body), {
      status: typeof body.error === 'string' ? 400 : 200,
      headers: { 'content-type': 'application/json' },
    });
  };

/**
 * GitHub (and GitHub Enterprise Server through the URL overrides): OAuth 2.0 with PKCE, endpoints
 * configured by hand (no discovery, no ID token); the identity comes from the REST API, and only a
 * verified primary e-mail counts.
 */
export function githubAdapter(configuration: ProviderConfiguration<'github'>, allowInsecureHttp: boolean, fetch: GuardedFetch): SsoAdapter {
  const authorizeUrl = configuration.authorizeUrl ?? GITHUB_DEFAULT_ENDPOINTS.authorizeUrl;
  const tokenUrl = configuration.tokenUrl ?? GITHUB_DEFAULT_ENDPOINTS.tokenUrl;
  const apiUrl = (configuration.apiUrl ?? GITHUB_DEFAULT_ENDPOINTS.apiUrl).replace(/\/+$/, '');
  const insecure = [authorizeUrl, tokenUrl, apiUrl].some((url) => allowsPlainHttp(url, allowInsecureHttp));
  const config = new client.Configuration(
    { issuer: new URL(authorizeUrl).origin, authorization_endpoint: authorizeUrl, token_endpoint: tokenUrl },
    configuration.clientId,
    configuration.clientSecret,
  );
  config[client.customFetch] = githubFetch(fetch);
  for (const execute of openidOptions(insecure).execute ?? []) execute(config);

  async function api<T>(path: string, accessToken: string, schema: z.ZodType<T>): Promise<T> {
    const url = new URL(`${apiUrl}${path}`);
    if (url.protocol !== 'https:' && !allowsPlainHttp(url, allowInsecureHttp))
      throw new SsoError('provider_error', `refusing plain http to ${url.origin}`);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
          'user-agent': 'infraledger',
        },
        signal: AbortSignal.timeout(API_TIMEOUT_MS),
      });
    } catch (error) {
      const refused = privateAddressIn(error);
      if (refused) throw privateAddressError(refused);
      throw new SsoError('provider_error', `GitHub API ${path} unreachable`, {}, { cause: error });
    }
    if (!response.ok) throw new SsoError('provider_error', `GitHub API ${path} answered HTTP ${response.status}`);
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new SsoError('provider_error', `GitHub API ${path} answered an unexpected shape`);
    return parsed.data;
  }

  return {
    async authorizationUrl(checks) {
      const challenge = await client.calculatePKCECodeChallenge(checks.codeVerifier);
      return client.buildAuthorizationUrl(config, {
        redirect_uri: configuration.redirectUrl,
        scope: GITHUB_SCOPES,
        state: checks.state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
    },
    async complete(callbackUrl, checks): Promise<SsoIdentity> {
      let accessToken: string;
      try {
        accessToken = (
          await client.authorizationCodeGrant(config, callbackUrl, { expectedState: checks.state, pkceCodeVerifier: checks.codeVerifier })
        ).access_token;
      } catch (error) {
        throw translateOpenidError(error);
      }
      const user = await api('/user', accessToken, githubUser);
      const emails = await api('/user/emails', accessToken, githubEmails);
      const subject = String(user.id);
      const primary = emails.find((e) => e.primary);
      const email = normalisedEmail(primary?.email);
      return { subject, email, emailVerified: email !== null && primary?.verified === true, displayName: user.name ?? user.login };
    },
  };
}
