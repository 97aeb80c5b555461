/**
 * Whether a credential issued at `issuedAt` falls under a user's "revoke everything issued before"
 * instant (`users.sessions_revoked_before`, set by revoke_sessions, a password change and
 * deactivation). JWT `iat` has one-second resolution, so the instant is cut to its second: a token
 * from the same second as the revocation is refused too, and none issued just before it slips
 * through. A credential without an issue time cannot prove it is newer, so it is refused.
 */
export function issuedBeforeRevocation(issuedAt: Date | undefined, revokedBefore: Date | string | null): boolean {
  if (revokedBefore === null) return false;
  if (issuedAt === undefined) return true;
  return issuedAt.getTime() <= Math.floor(new Date(revokedBefore).getTime() / 1000) * 1000;
}
