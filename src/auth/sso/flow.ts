import type { GuardedFetch } from './guarded-fetch.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { executeCommand, loadAggregate } from '../../commands/handler.js';
import { sessionAggregate } from '../../commands/session.js';
import { SsoLoginRefused, ssoLoginAggregate } from '../../commands/sso-login.js';
import { AppError, notFound } from '../../errors.js';
import type { CommandContext } from '../../events/define.js';
import { SSO_TYPES, type ProviderConfiguration } from '../../commands/auth-provider-config.js';
import { recordSignIn, sha256, startSession, type IssuedToken, type SignInDeps } from '../sign-in.js';
import type { SsoAdapter } from './adapter.js';
import { SsoError } from './errors.js';
import { githubAdapter } from './github.js';
import { discoverWith, googleAdapter, microsoftAdapter } from './oidc.js';
import type { LoadedProvider, ProviderConfigurations } from './providers.js';
import { findOrCreateUser } from './users.js';

/** How long a started sign-in may take at the identity provider (the state cookie's lifetime). */
export const SSO_LOGIN_TTL_SECONDS = 600;

const LOGIN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STATE = /^[A-Za-z0-9_-]{20,200}$/;

/** What the single-sign-on flows need: sign-in, the provider adapters and the settings. */
export interface SsoDeps {
  readonly signIn: SignInDeps;
  readonly providers: ProviderConfigurations;
  /** `SSO_ALLOW_INSECURE_HTTP`: plain http to identity providers beyond loopback. */
  readonly allowInsecureHttp: boolean;
  /** How the service reaches identity providers: behind the private-address guard (./guarded-fetch.ts). */
  readonly fetch: GuardedFetch;
}

/** The browser sign-in flows of the github, google and microsoft providers. */
export interface SsoService {
  /**
   * Starts a sign-in: the authorization URL to redirect to, and the value of the state cookie.
   * @throws AppError NOT_FOUND (no such SSO provider), RATE_LIMITED; SsoError (disabled, unreachable)
   */
  start(key: string, address: string, context: CommandContext): Promise<{ location: string; cookie: string }>;
  /**
   * Completes a sign-in from the callback's query and the state cookie, and starts a browser session.
   * @throws AppError NOT_FOUND, RATE_LIMITED; SsoError naming the reason for everything else
   */
  complete(
    key: string,
    query: Readonly<Record<string, unknown>>,
    cookie: string | undefined,
    address: string,
    context: CommandContext,
  ): Promise<IssuedToken>;
  /** Records a refused sign-in (audit: `SignInFailed` with the code as reason). */
  recordFailure(key: string, error: SsoError, context: CommandContext): Promise<void>;
  /**
   * Before a browser session is refreshed: ends it (and throws UNAUTHENTICATED) when its provider is
   * disabled or the identity provider no longer accepts the stored refresh token (Google).
   * `presentedHash` is the refresh cookie's; nothing is checked upstream for a cookie that is not the
   * session's current one (the refresh itself refuses it).
   */
  beforeRefresh(sessionId: string, presentedHash: string, context: CommandContext): Promise<void>;
}

const sameSecret = (a: string, b: string): boolean => {
  const hash = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(a), hash(b));
};

/** The domain filter of docs/contract.md §5: `@` + one listed domain at the end, case-insensitive, no subdomains. */
export function emailInDomains(email: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  return at > 0 && domains.some((d) => d.toLowerCase() === domain);
}

/** The single-sign-on service: login redirects, callbacks and session refreshes for every SSO provider. */
export function createSsoService(deps: SsoDeps): SsoService {
  const { signIn, providers } = deps;
  const adapters = new Map<string, { revision: number; adapter: SsoAdapter }>();
  const discover = discoverWith(deps.allowInsecureHttp, deps.fetch);

  function adapterOf(provider: LoadedProvider): SsoAdapter {
    const cached = adapters.get(provider.id);
    if (cached?.revision === provider.revision) return cached.adapter;
    const adapter =
      provider.type === 'github'
        ? githubAdapter(provider.configuration as ProviderConfiguration<'github'>, deps.allowInsecureHttp, deps.fetch)
        : provider.type === 'google'
          ? googleAdapter(provider.configuration as ProviderConfiguration<'google'>, discover)
          : microsoftAdapter(provider.configuration as ProviderConfiguration<'microsoft'>, discover);
    adapters.set(provider.id, { revision: provider.revision, adapter });
    return adapter;
  }

  async function ssoProvider(key: string): Promise<LoadedProvider> {
    const provider = await providers.byKey(key);
    if (!provider) throw notFound(`no auth provider with the key ${key}`);
    if (!SSO_TYPES.includes(provider.type))
      throw notFound(`auth provider ${key} (type ${provider.type}) has no browser sign-in; only ${SSO_TYPES.join(', ')} providers do`);
    return provider;
  }

  async function transaction(
    provider: LoadedProvider,
    query: Readonly<Record<string, unknown>>,
    cookie: string | undefined,
    now: Date,
    context: CommandContext,
  ) {
    const [loginId = '', state = ''] = (cookie ?? '').split('.');
    if (!LOGIN_ID.test(loginId) || !STATE.test(state))
      throw new SsoError('invalid_state', 'no valid sign-in cookie (expired, blocked, or another browser)');
    if (typeof query.state !== 'string' || !sameSecret(query.state, state))
      throw new SsoError('invalid_state', 'the state parameter does not match the sign-in cookie');
    try {
      const result = await executeCommand(
        signIn,
        ssoLoginAggregate,
        loginId,
        { type: 'CompleteSsoLogin', data: { provider: provider.key, stateHash: sha256(state), now: now.toISOString() } },
        context,
      );
      if (result.state.status !== 'completed') throw new TypeError('a completed sign-in transaction must be in state completed');
      return { state, nonce: result.state.nonce, codeVerifier: result.state.codeVerifier };
    } catch (error) {
      if (error instanceof SsoLoginRefused) throw new SsoError('invalid_state', `sign-in transaction refused (${error.refusal})`);
      // Two callbacks of one transaction at once: the loser's append conflicts; it was used.
      if (error instanceof AppError && error.category === 'CONFLICT')
        throw new SsoError('invalid_state', 'sign-in transaction refused (used)');
      throw error;
    }
  }

  return {
    async start(key, address, context) {
      const provider = await ssoProvider(key);
      await signIn.limiter.admit(address, undefined, context.now);
      if (!provider.enabled) throw new SsoError('provider_disabled', `provider ${key} is disabled`);
      const checks = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
      const location = await adapterOf(provider).authorizationUrl(checks);
      const id = signIn.newId();
      const expiresAt = new Date(context.now.getTime() + SSO_LOGIN_TTL_SECONDS * 1000).toISOString();
      await executeCommand(
        signIn,
        ssoLoginAggregate,
        id,
        {
          type: 'StartSsoLogin',
          data: { id, provider: key, stateHash: sha256(checks.state), nonce: checks.nonce, codeVerifier: checks.codeVerifier, expiresAt },
        },
        context,
      );
      return { location: location.href, cookie: `${id}.${checks.state}` };
    },

    async complete(key, query, cookie, address, context) {
      const provider = await ssoProvider(key);
      await signIn.limiter.admit(address, undefined, context.now);
      if (!provider.enabled) throw new SsoError('provider_disabled', `provider ${key} is disabled`);
      const checks = await transaction(provider, query, cookie, context.now, context);
      if (typeof query.error === 'string') {
        throw new SsoError(
          query.error === 'access_denied' ? 'access_denied' : 'provider_error',
          `the identity provider answered error=${query.error.slice(0, 64)}`,
        );
      }
      if (typeof query.code !== 'string' || query.code === '') throw new SsoError('invalid_request', 'the callback has no code');
      const { redirectUrl } = provider.configuration as { redirectUrl: string };
      // The redirect URI sent to the token endpoint is the configured one, whatever host the request came in on.
      const callbackUrl = new URL(redirectUrl);
      for (const [name, value] of Object.entries(query)) if (typeof value === 'string') callbackUrl.searchParams.set(name, value);
      const identity = await adapterOf(provider).complete(callbackUrl, checks);
      const who = { identifier: identity.email ?? identity.subject };
      if (identity.email === null || !identity.emailVerified)
        throw new SsoError('email_not_verified', 'the provider vouches for no e-mail address of this account', who);
      if (!emailInDomains(identity.email, provider.filterByDomain)) {
        throw new SsoError('domain_not_allowed', `${identity.email} is outside ${provider.filterByDomain.join(', ')}`, who);
      }
      const { user, position } = await findOrCreateUser(signIn, key, identity, [identity.email], context);
      if (user.deactivated)
        throw new SsoError('user_deactivated', 'the user is deactivated', { userId: user.id, identifier: user.identifier });
      if (position !== undefined) await signIn.waitFor(['users'], position);
      return startSession(
        signIn,
        {
          userId: user.id,
          identifier: user.identifier,
          method: 'session',
          provider: key,
          browser: true,
          ...(identity.refreshToken === undefined ? {} : { upstreamRefreshToken: identity.refreshToken }),
        },
        context,
      );
    },

    async recordFailure(key, error, context) {
      await recordSignIn(
        signIn,
        {
          type: 'SignInFailed',
          data: { userId: error.userId, method: 'session', provider: key, identifier: error.identifier, reason: error.code },
        },
        context,
      );
    },

    async beforeRefresh(sessionId, presentedHash, context) {
      const { state } = await loadAggregate(signIn, sessionAggregate, sessionId);
      if (
        state.status !== 'open' ||
        state.provider === null ||
        state.refreshTokenHash === null ||
        !sameSecret(state.refreshTokenHash, presentedHash)
      )
        return;
      const provider = await providers.byKey(state.provider);
      if (provider !== undefined && !SSO_TYPES.includes(provider.type)) return;
      const end = async (reason: 'identity_provider_refused' | 'provider_disabled', message: string): Promise<never> => {
        const result = await executeCommand(signIn, sessionAggregate, sessionId, { type: 'EndSession', data: { reason } }, context);
        if (result.position !== undefined) await signIn.waitFor(['sessions'], result.position);
        throw new AppError('UNAUTHENTICATED', message);
      };
      if (!provider?.enabled) return end('provider_disabled', `sign-in through ${state.provider} is disabled: the session has ended`);
      const adapter = adapterOf(provider);
      if (state.upstreamRefreshToken === null || !adapter.checkRefreshToken) return;
      try {
        await adapter.checkRefreshToken(state.upstreamRefreshToken);
      } catch (error) {
        if (error instanceof SsoError && error.code === 'code_rejected') {
          signIn.log.info(
            { sessionId, provider: provider.key },
            'the identity provider refused the session refresh token; ending the session',
          );
          return end(
            'identity_provider_refused',
            'the identity provider no longer accepts this account: the session has ended; sign in again',
          );
        }
        signIn.log.warn(
          { sessionId, provider: provider.key, reason: error instanceof Error ? error.message : 'unknown' },
          'could not re-check the account at the identity provider',
        );
        throw new AppError('UNAVAILABLE', 'the identity provider could not be reached to re-check the account; try again shortly');
      }
    },
  };
}
