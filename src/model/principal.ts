import type { Permission } from './permissions.js';

/** How the caller proved who they are. */
export type AuthMethod = 'session' | 'service_account' | 'personal_access_token' | 'guest' | 'backstage';

/** The authenticated caller of a request, resolved once per request from its bearer token. */
export interface Principal {
  readonly userId: string;
  readonly kind: 'human' | 'service_account' | 'guest';
  readonly identifier: string;
  readonly roles: readonly string[];
  readonly permissions: readonly Permission[];
  readonly method: AuthMethod;
  /** The session (sid) behind a service token; undefined for personal access tokens. */
  readonly sessionId?: string;
  /** The personal access token used, if any. */
  readonly tokenId?: string;
  /**
   * The caller's teams as the statement that authenticated the request read them (with the session,
   * so as fresh as the roles); absent when that statement did not read them (personal access and
   * portal tokens, callers recalled without a statement): whoever needs them then reads them.
   */
  readonly teams?: readonly TeamMembership[];
}

/** A team the caller is in, and whether they lead it. */
export interface TeamMembership {
  readonly teamId: string;
  readonly role: 'member' | 'lead';
}
