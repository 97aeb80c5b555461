/**
 * Why a browser sign-in failed: the closed set of codes the callback puts in
 * `{BASE_URL}/login?error=<code>`, with the sentence the login page shows for each. The web UI copies
 * these texts; the audit log records the same code as the `SignInFailed` reason.
 */
export const SSO_ERROR_MESSAGES = {
  access_denied: 'Sign-in was cancelled or refused at the identity provider.',
  invalid_request: 'The identity provider sent an incomplete answer. Please sign in again.',
  invalid_state: 'This sign-in link has expired or was already used. Please sign in again.',
  code_rejected: 'The identity provider did not accept the sign-in code. Please sign in again.',
  invalid_id_token: 'The identity provider’s answer could not be verified. Please sign in again.',
  provider_error: 'The identity provider could not be reached or answered with an error. Please try again later.',
  wrong_tenant: 'This account belongs to another organisation (Microsoft tenant) than the one allowed here.',
  email_not_verified: 'Your account has no verified e-mail address at the identity provider.',
  domain_not_allowed: 'Your e-mail address is not in a domain allowed to sign in here.',
  no_refresh_token: 'The identity provider did not grant offline access. Please sign in again and accept the consent screen.',
  provider_disabled: 'This sign-in method is disabled.',
  user_deactivated: 'Your account has been deactivated. Ask an administrator.',
  server_error: 'Sign-in failed because of an internal error. Please try again.',
} as const satisfies Record<string, string>;

/** One failure code of {@link SSO_ERROR_MESSAGES}. */
export type SsoErrorCode = keyof typeof SSO_ERROR_MESSAGES;

/** Every single-sign-on error code. */
export const SSO_ERROR_CODES = Object.keys(SSO_ERROR_MESSAGES) as readonly SsoErrorCode[];

/**
 * A refused browser sign-in. `detail` is for the log and never reaches the browser; it must not hold
 * tokens, codes or secrets.
 */
export class SsoError extends Error {
  override readonly name = 'SsoError';
  readonly code: SsoErrorCode;
  /** The user the refusal concerns, once known (audit). */
  readonly userId: string | null;
  /** Who tried, once known: the e-mail or the provider's subject (audit). */
  readonly identifier: string;

  constructor(
    code: SsoErrorCode,
    detail: string,
    who: { userId?: string | null; identifier?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.code = code;
    this.userId = who.userId ?? null;
    this.identifier = who.identifier ?? '';
  }
}
