/** Readable messages for the `error` codes single sign-on callbacks send back to /login?error=<code>. */
export const LOGIN_ERROR_MESSAGES: Readonly<Record<string, string>> = {
  access_denied: 'Sign-in was cancelled or refused at the identity provider.',
  invalid_state: 'The sign-in attempt expired or was started in another browser tab. Please try again.',
  domain_not_allowed: 'Your e-mail domain is not allowed to sign in with this provider.',
  email_not_verified: 'Your e-mail address is not verified at the identity provider. Verify it there, then try again.',
  no_refresh_token: 'The identity provider did not grant offline access. Please sign in again and accept the consent screen.',
  wrong_tenant: 'Your account belongs to a different organisation (tenant) than the one this provider allows.',
  provider_disabled: 'This sign-in method has been disabled by an administrator.',
  user_deactivated: 'Your account has been deactivated. Contact an administrator.',
  server_error: 'Sign-in failed because of an error on the server. Please try again later.',
  session_expired: 'Your session has ended. Please sign in again.',
};

/** The message for a code; an unknown code is shown as it came, so it can be reported. */
export const loginErrorMessage = (code: string): string => LOGIN_ERROR_MESSAGES[code] ?? `Sign-in failed: ${code}`;
