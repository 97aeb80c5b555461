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
}
