import { PrivateAddressRefused } from './guarded-fetch.js';
import * as client from 'openid-client';
import { SsoError } from './errors.js';

/** Who the identity provider says signed in. */
export interface SsoIdentity {
  /** Stable id at the provider (users are matched by provider key + subject, never by e-mail). */
  readonly subject: string;
  /** The address, lower-cased; null when the provider gave none. */
  readonly email: string | null;
  /** Whether the provider vouches for the address. */
  readonly emailVerified: boolean;
  /** The groups the provider's configured claim lists (absent: the provider reports none). */
  readonly groups?: readonly string[];
  readonly displayName: string | null;
  /** The provider's refresh token (Google: required, kept to re-check the account on refresh). */
  readonly refreshToken?: string;
}

/** The values bound to one sign-in: sent in the request, checked in the callback. */
export interface SsoChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** One provider type's side of the authorization-code flow. */
export interface SsoAdapter {
  /** Where to send the browser. */
  authorizationUrl(checks: SsoChecks): Promise<URL>;
  /**
   * Redeems the code of `callbackUrl` (the configured redirect URL plus the callback's query) and
   * returns the identity. @throws SsoError
   */
  complete(callbackUrl: URL, checks: SsoChecks): Promise<SsoIdentity>;
  /** Proves the account is still valid with a stored refresh token (Google). @throws SsoError */
  checkRefreshToken?(refreshToken: string): Promise<void>;
}

const OPENID_TIMEOUT_SECONDS = 10;

/** Options every openid-client configuration of the service gets. */
export function openidOptions(insecure: boolean): client.DiscoveryRequestOptions {
  // Deprecated only as a warning sign; the http policy (http-policy.ts) decides when it applies.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return { timeout: OPENID_TIMEOUT_SECONDS, execute: insecure ? [client.allowInsecureRequests] : [] };
}

const ID_TOKEN_FAILURES = new Set(['OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_KEY_SELECTION_FAILED']);

/**
 * openid-client's failures in the closed set of sign-in codes. The detail names the kind of failure
 * (and the OAuth error code), never a token, code or secret.
 */
export function translateOpenidError(error: unknown, identifier = ''): SsoError {
  if (error instanceof SsoError) return error;
  const refused = privateAddressIn(error);
  if (refused) return privateAddressError(refused, identifier);
  if (error instanceof client.AuthorizationResponseError) {
    return new SsoError(
      error.error === 'access_denied' ? 'access_denied' : 'provider_error',
      `authorization response error: ${error.error}`,
      { identifier },
    );
  }
  if (error instanceof client.ResponseBodyError) {
    const rejected = error.error === 'invalid_grant' || error.error === 'bad_verification_code';
    return new SsoError(rejected ? 'code_rejected' : 'provider_error', `token endpoint error: ${error.error} (HTTP ${error.status})`, {
      identifier,
    });
  }
  if (error instanceof client.ClientError) {
    const code = error.code ?? '';
    if (ID_TOKEN_FAILURES.has(code) || /signature/i.test(error.message)) {
      return new SsoError('invalid_id_token', `ID token refused: ${error.message}`, { identifier });
    }
    return new SsoError('provider_error', `identity provider exchange failed: ${code} ${error.message}`, { identifier });
  }
  return new SsoError('provider_error', `identity provider unreachable: ${error instanceof Error ? error.message : 'unknown error'}`, {
    identifier,
  });
}

/** The guard's refusal behind an error (openid-client wraps what its fetch throws), if it is one. */
export function privateAddressIn(error: unknown): PrivateAddressRefused | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof PrivateAddressRefused) return current;
  }
  return undefined;
}

/** How a refused private address reads in the sign-in's log and audit: the setting that allows it. */
export const privateAddressError = (refused: PrivateAddressRefused, identifier = ''): SsoError =>
  new SsoError(
    'provider_error',
    `refusing to reach the identity provider: ${refused.message} (an administrator may allow it with SSO_ALLOW_PRIVATE_ADDRESSES=true)`,
    { identifier },
  );

/** Lower-cased e-mail, or null for anything that is not one. */
export function normalisedEmail(value: unknown): string | null {
  return typeof value === 'string' && /^[^\s@]+@[^\s@]+$/.test(value) ? value.toLowerCase() : null;
}
