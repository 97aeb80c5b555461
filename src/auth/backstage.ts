import * as jose from 'jose';
import type { Db } from '../storage/kysely.js';
import { AppError } from '../errors.js';
import type { CommandContext } from '../events/define.js';
import type { ProviderConfiguration } from '../commands/auth-provider-config.js';
import { recordSignIn, startSession, type IssuedToken, type SignInDeps } from './sign-in.js';
import type { LoadedProvider, ProviderConfigurations } from './sso/providers.js';
import { issuedBeforeRevocation } from './revocation.js';
import { PrivateAddressRefused, type JwksFetch } from './sso/guarded-fetch.js';
import { findOrCreateUser, observeGroups } from './sso/users.js';
import { normaliseGroups } from '../model/team.js';

/** The `typ` header of a Backstage user identity token. */
export const BACKSTAGE_TOKEN_TYPE = 'vnd.backstage.user';
/** The audience Backstage puts in its user identity tokens. */
export const BACKSTAGE_AUDIENCE = 'backstage';
/** Algorithms accepted from a portal's JWKS (Backstage signs with ES256 by default); HS256 only with the shared secret. */
export const BACKSTAGE_JWKS_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
] as const;
/** The algorithm of the shared-secret Backstage tokens. */
export const BACKSTAGE_SECRET_ALGORITHM = 'HS256';

/** `user:<namespace>/<name>`: the entity reference Backstage puts in `sub`. */
const USER_ENTITY_REF = /^user:[a-z0-9][a-z0-9._-]*\/[^\s/][^\s]{0,250}$/i;

/** Whether a bearer token says it is a Backstage user token (its JWS protected header `typ`). */
export function isBackstageToken(token: string): boolean {
  try {
    return jose.decodeProtectedHeader(token).typ === BACKSTAGE_TOKEN_TYPE;
  } catch {
    return false;
  }
}

/** A `users` row, as the authenticator turns it into a principal. */
export interface BackstageUserRow {
  id: string;
  kind: 'human' | 'service_account' | 'guest';
  identifier: string;
  roles: string[];
  grants: string[];
  deactivated: boolean;
  sessions_revoked_before: Date | null;
  /** The groups its last sign-in reported. */
  external_groups: string[];
}

/** Verifies Backstage user tokens against the enabled provider's JWKS or shared secret. */
export interface BackstageAuth {
  /** The user a Backstage bearer token names (created on first use). @throws AppError UNAUTHENTICATED naming why */
  userOf(token: string, now: Date): Promise<BackstageUserRow>;
  /**
   * `POST /api/auth/backstage/token`: a service session token for a Backstage user token. Every
   * outcome is an audit fact; rate-limited per address.
   */
  exchange(token: string, address: string, context: CommandContext): Promise<IssuedToken>;
}

/** What Backstage verification needs: the providers' configuration and the JWKS fetch settings. */
export interface BackstageDeps {
  readonly signIn: SignInDeps;
  readonly db: Db;
  readonly providers: ProviderConfigurations;
  /** jose's refetch cooldown for an unknown `kid` (default 30 s). */
  readonly jwksCooldownMs?: number;
  /** How key sets are fetched: refusing private addresses unless SSO_ALLOW_PRIVATE_ADDRESSES (./sso/guarded-fetch.ts). */
  readonly fetchJwks: JwksFetch;
}

interface Verified {
  readonly provider: LoadedProvider<'backstage'>;
  readonly subject: string;
  readonly expiresAt: Date;
  /** The token's `iat`, when it has one. */
  readonly issuedAt: Date | undefined;
  /** The group references of its `ent` claim (the user's ownership), normalised. */
  readonly groups: string[];
}

/** The `group:` references of a Backstage token's `ent` claim (the user's own reference is not a group). */
const groupsOfEnt = (ent: unknown): string[] =>
  normaliseGroups(Array.isArray(ent) ? ent.filter((ref): ref is string => typeof ref === 'string' && /^group:/i.test(ref)) : []);

/** docs/contract.md §5: revoke_sessions, a password change and deactivation end Backstage tokens issued before them. */
const REVOKED = "Backstage token revoked: the user's sessions were revoked after it was issued; sign in at the developer portal again";

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

/** jose's failures in words a caller can act on; nothing about keys or internals. */
function explain(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof PrivateAddressRefused) {
    return new AppError(
      'UNAVAILABLE',
      `the developer portal's JWKS is not fetched from a private, loopback or link-local address (${error.address}); an administrator ` +
        `may allow it with SSO_ALLOW_PRIVATE_ADDRESSES=true`,
    );
  }
  if (error instanceof jose.errors.JWTExpired) return unauthenticated('Backstage token expired');
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return unauthenticated(`Backstage token was not issued for the audience ${BACKSTAGE_AUDIENCE}`);
    return unauthenticated(`invalid Backstage token: ${error.claim} claim`);
  }
  if (error instanceof jose.errors.JOSEAlgNotAllowed || error instanceof jose.errors.JOSENotSupported)
    return unauthenticated('Backstage token algorithm not allowed');
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return unauthenticated('invalid Backstage token signature');
  if (error instanceof jose.errors.JWKSNoMatchingKey) return unauthenticated('Backstage token signed with an unknown key');
  if (
    error instanceof jose.errors.JWKSTimeout ||
    error instanceof jose.errors.JWKSInvalid ||
    (error instanceof jose.errors.JOSEError && /JSON Web Key Set/.test(error.message)) ||
    error instanceof TypeError
  ) {
    return new AppError('UNAVAILABLE', "the developer portal's JWKS could not be fetched; try again shortly");
  }
  return unauthenticated('malformed Backstage token');
}

/** The shared secret as keys: its text, and its base64 decoding (Backstage's `backend.auth.keys` form). */
function secretKeys(secret: string): Uint8Array[] {
  const keys = [new TextEncoder().encode(secret)];
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret)) {
    const decoded = Buffer.from(secret, 'base64');
    if (decoded.length >= 16) keys.push(new Uint8Array(decoded));
  }
  return keys;
}

/**
 * Backstage (developer portal) user tokens on the API: verified against an enabled backstage
 * provider's JWKS (one cached set per provider and URL: jose refetches on an unknown `kid`, at most
 * once per cooldown) or its shared HS256 secret; `exp` required, `aud` = `backstage`, `typ`
 * checked, algorithms allow-listed. `sub` names the user, created on first use with role `default`.
 */
export function createBackstageAuth(deps: BackstageDeps): BackstageAuth {
  const { signIn, db, providers } = deps;
  const keySets = new Map<string, ReturnType<typeof jose.createRemoteJWKSet>>();

  function keySetOf(provider: LoadedProvider<'backstage'>, url: string): ReturnType<typeof jose.createRemoteJWKSet> {
    const cacheKey = `${provider.id} ${url}`;
    let keySet = keySets.get(cacheKey);
    if (!keySet) {
      for (const key of keySets.keys()) if (key.startsWith(`${provider.id} `)) keySets.delete(key);
      keySet = jose.createRemoteJWKSet(new URL(url), {
        cooldownDuration: deps.jwksCooldownMs ?? 30_000,
        timeoutDuration: 5000,
        [jose.customFetch]: deps.fetchJwks,
      });
      keySets.set(cacheKey, keySet);
    }
    return keySet;
  }

  async function verifyWith(provider: LoadedProvider<'backstage'>, token: string, now: Date): Promise<Verified> {
    const configuration: ProviderConfiguration<'backstage'> = provider.configuration;
    const options = { audience: BACKSTAGE_AUDIENCE, typ: BACKSTAGE_TOKEN_TYPE, requiredClaims: ['exp', 'sub'], currentDate: now };
    const { alg } = jose.decodeProtectedHeader(token);
    let payload: jose.JWTPayload;
    if (alg === BACKSTAGE_SECRET_ALGORITHM) {
      if (configuration.privateKey === undefined) throw unauthenticated('Backstage token algorithm not allowed');
      let last: unknown;
      let verified: jose.JWTPayload | undefined;
      for (const key of secretKeys(configuration.privateKey)) {
        try {
          verified = (await jose.jwtVerify(token, key, { ...options, algorithms: [BACKSTAGE_SECRET_ALGORITHM] })).payload;
          break;
        } catch (error) {
          last = error;
          // Only a wrong key is worth the other form of the secret; an expired token stays expired.
          if (!(error instanceof jose.errors.JWSSignatureVerificationFailed)) break;
        }
      }
      if (!verified) throw explain(last);
      payload = verified;
    } else {
      if (configuration.jwksUrl === undefined) throw unauthenticated('Backstage token algorithm not allowed');
      payload = (
        await jose
          .jwtVerify(token, keySetOf(provider, configuration.jwksUrl), { ...options, algorithms: [...BACKSTAGE_JWKS_ALGORITHMS] })
          .catch((error: unknown) => {
            if (error instanceof PrivateAddressRefused)
              signIn.log.warn(
                { provider: provider.key, address: error.address },
                'refused to fetch a Backstage JWKS from a private address (SSO_ALLOW_PRIVATE_ADDRESSES)',
              );
            throw error;
          })
      ).payload;
    }
    const subject = payload.sub ?? '';
    if (!USER_ENTITY_REF.test(subject))
      throw unauthenticated('invalid Backstage token: sub must be a user entity reference such as user:default/jane');
    return {
      provider,
      subject,
      expiresAt: new Date((payload.exp ?? 0) * 1000),
      issuedAt: typeof payload.iat === 'number' ? new Date(payload.iat * 1000) : undefined,
      groups: groupsOfEnt(payload.ent),
    };
  }

  async function verify(token: string, now: Date): Promise<Verified> {
    const enabled = await providers.enabledOfType('backstage');
    if (enabled.length === 0) throw unauthenticated('Backstage tokens are not accepted: no backstage provider is enabled');
    let failure: AppError | undefined;
    for (const provider of enabled) {
      try {
        return await verifyWith(provider, token, now);
      } catch (error) {
        failure = explain(error);
      }
    }
    throw failure ?? unauthenticated('malformed Backstage token');
  }

  const sameGroups = (a: readonly string[], b: readonly string[]): boolean =>
    a.length === b.length && a.every((group, index) => group === b[index]);

  const displayNameOf = (subject: string): string => subject.slice(subject.indexOf('/') + 1);

  async function userRow(provider: string, subject: string): Promise<BackstageUserRow | undefined> {
    return db
      .selectFrom('users')
      .select(['id', 'kind', 'identifier', 'roles', 'grants', 'deactivated', 'sessions_revoked_before', 'external_groups'])
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  return {
    async userOf(token, now) {
      const { provider, subject, issuedAt, groups } = await verify(token, now);
      const row = await userRow(provider.key, subject);
      const context = { actorId: null, correlationId: signIn.newId(), causationId: null, now };
      if (row) {
        // A deactivated user is refused as such by the authenticator, which says so.
        if (row.deactivated) return row;
        if (issuedBeforeRevocation(issuedAt, row.sessions_revoked_before)) throw unauthenticated(REVOKED);
        // Every request with a portal token is a sign-in: its ownership decides team membership now.
        if (!sameGroups(row.external_groups, groups)) {
          const position = await observeGroups(signIn, row.id, groups, context);
          if (position !== undefined) await signIn.waitFor(['users'], position);
        }
        return row;
      }
      const { position } = await findOrCreateUser(
        signIn,
        provider.key,
        { subject, email: null, displayName: displayNameOf(subject), groups },
        [subject],
        context,
      );
      if (position !== undefined) await signIn.waitFor(['users'], position);
      const created = await userRow(provider.key, subject);
      if (!created) throw new AppError('UNAVAILABLE', 'the Backstage user is being created; try again shortly');
      return created;
    },

    async exchange(token, address, context) {
      // A signed portal token is no guess at an identifier: only the address counts.
      await signIn.limiter.admit(address, undefined, context.now);
      let verified: Verified;
      try {
        verified = await verify(token, context.now);
      } catch (error) {
        const refused = explain(error);
        if (refused.code === 'UNAUTHENTICATED') {
          const reason = /no backstage provider is enabled/.test(refused.message) ? 'provider_disabled' : 'invalid_token';
          await recordSignIn(
            signIn,
            { type: 'SignInFailed', data: { userId: null, method: 'backstage', provider: null, identifier: '', reason } },
            context,
          );
        }
        throw refused;
      }
      const { provider, subject, expiresAt, issuedAt, groups } = verified;
      const { user, position } = await findOrCreateUser(
        signIn,
        provider.key,
        { subject, email: null, displayName: displayNameOf(subject), groups },
        [subject],
        context,
      );
      const refuse = async (reason: string, message: string): Promise<never> => {
        await recordSignIn(
          signIn,
          {
            type: 'SignInFailed',
            data: { userId: user.id, method: 'backstage', provider: provider.key, identifier: user.identifier, reason },
          },
          context,
        );
        throw unauthenticated(message);
      };
      if (user.deactivated) return refuse('user_deactivated', 'user deactivated');
      if (issuedBeforeRevocation(issuedAt, user.sessionsRevokedBefore)) return refuse('token_revoked', REVOKED);
      if (position !== undefined) await signIn.waitFor(['users'], position);
      // The session token outlives neither the service's access-token lifetime nor the portal's token.
      const ttlSeconds = Math.max(
        1,
        Math.min(signIn.accessTokenTtlSeconds, Math.floor((expiresAt.getTime() - context.now.getTime()) / 1000)),
      );
      return startSession(
        signIn,
        { userId: user.id, identifier: user.identifier, method: 'backstage', provider: provider.key, ttlSeconds, browser: false },
        context,
      );
    },
  };
}
