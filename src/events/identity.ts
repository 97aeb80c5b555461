import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';
import { accountChangesSchema, accountCreatedSchema, accountVersioning, secretPathsOfAccount } from '../model/account.js';
import { USER_KINDS, userEntity } from '../model/user.js';
import { AUTH_METHODS, SESSION_END_REASONS, sessionEntity } from '../model/session.js';

/** What kind of user an account is, validated. */
export const userKind = z.enum(USER_KINDS);
/** How a caller signed in, validated. */
export const authMethod = z.enum(AUTH_METHODS);

// ---- users (stream `user-<id>`) -------------------------------------------------------------------

/** A user was created: every field of its declaration (src/model/user.ts), the password hash encrypted in the store. */
export const UserCreated = defineEvent('UserCreated', accountCreatedSchema(userEntity), {
  secretPaths: secretPathsOfAccount(userEntity),
  ...accountVersioning(userEntity),
});
/** Some of a user's updatable fields changed (display name, e-mail, roles, grants, …). */
export const UserUpdated = defineEvent('UserUpdated', z.object({ changes: accountChangesSchema(userEntity) }));
/** A user's password changed (the hash is encrypted in the store). */
export const UserPasswordChanged = defineEvent('UserPasswordChanged', z.object({ passwordHash: z.string() }), {
  secretPaths: ['passwordHash'],
});
/**
 * A service account's password hash was remade with today's parameters at a successful sign-in (the
 * password is the same; nothing ends). Encrypted in the store like every hash.
 */
export const UserPasswordRehashed = defineEvent('UserPasswordRehashed', z.object({ passwordHash: z.string() }), {
  secretPaths: ['passwordHash'],
});
/** A user was deactivated. */
export const UserDeactivated = defineEvent('UserDeactivated', z.object({}));
/** A user was reactivated. */
export const UserReactivated = defineEvent('UserReactivated', z.object({}));
/** Every token issued before `before` is refused from now on. */
export const UserSessionsRevoked = defineEvent('UserSessionsRevoked', z.object({ before: z.iso.datetime({ offset: true }) }));

/**
 * The groups the user's identity provider reported at a sign-in changed (Backstage ownership
 * references, an OIDC groups claim): teams that name one of them count the user as a member.
 */
export const UserGroupsObserved = defineEvent('UserGroupsObserved', z.object({ groups: z.array(z.string()) }));

/** Every user event. */
export type UserEvent =
  | EventOf<typeof UserCreated>
  | EventOf<typeof UserUpdated>
  | EventOf<typeof UserPasswordChanged>
  | EventOf<typeof UserPasswordRehashed>
  | EventOf<typeof UserDeactivated>
  | EventOf<typeof UserReactivated>
  | EventOf<typeof UserSessionsRevoked>
  | EventOf<typeof UserGroupsObserved>;

// ---- sessions (stream `session-<id>`): every token the service issues belongs to one -------------

/** A session began (a sign-in issued its first token): the fields of src/model/session.ts, its hashes encrypted in the store. */
export const SessionStarted = defineEvent('SessionStarted', accountCreatedSchema(sessionEntity), {
  secretPaths: secretPathsOfAccount(sessionEntity),
  ...accountVersioning(sessionEntity),
});
/** A session's refresh token was rotated. */
export const SessionRefreshed = defineEvent(
  'SessionRefreshed',
  z.object({ refreshTokenHash: z.string(), expiresAt: z.iso.datetime({ offset: true }) }),
  {
    secretPaths: ['refreshTokenHash'],
  },
);
/** A session ended (logout, revocation, refused refresh). */
export const SessionEnded = defineEvent('SessionEnded', z.object({ reason: z.enum(SESSION_END_REASONS) }));

/** Every session event. */
export type SessionEvent = EventOf<typeof SessionStarted> | EventOf<typeof SessionRefreshed> | EventOf<typeof SessionEnded>;

// ---- sign-in attempts (stream `signin-<yyyy-mm-dd>`): audit facts, success and failure ------------

/** A sign-in succeeded. */
export const SignInSucceeded = defineEvent(
  'SignInSucceeded',
  z.object({ userId: z.string(), method: authMethod, provider: z.string().nullable(), identifier: z.string(), sessionId: z.string() }),
);
/** A sign-in failed. */
export const SignInFailed = defineEvent(
  'SignInFailed',
  z.object({
    userId: z.string().nullable(),
    method: authMethod,
    provider: z.string().nullable(),
    identifier: z.string(),
    reason: z.string(),
  }),
);

/** Every sign-in event. */
export type SignInEvent = EventOf<typeof SignInSucceeded> | EventOf<typeof SignInFailed>;

// ---- browser sign-in transactions (stream `sso_login-<id>`): state, nonce and PKCE, used once ------

/** A single-sign-on login began (its state, nonce and PKCE verifier). */
export const SsoLoginStarted = defineEvent(
  'SsoLoginStarted',
  z.object({
    id: z.string(),
    /** Key of the provider the browser was sent to. */
    provider: z.string(),
    /** SHA-256 of the `state` parameter (the browser's cookie holds the value itself). */
    stateHash: z.string(),
    nonce: z.string(),
    codeVerifier: z.string(),
    expiresAt: z.iso.datetime({ offset: true }),
  }),
  { secretPaths: ['stateHash', 'nonce', 'codeVerifier'] },
);
/** The callback used the transaction: a second callback with the same state is refused. */
export const SsoLoginCompleted = defineEvent('SsoLoginCompleted', z.object({}));

/** Every single-sign-on login event. */
export type SsoLoginEvent = EventOf<typeof SsoLoginStarted> | EventOf<typeof SsoLoginCompleted>;

/** The identity event definitions (users, sessions, sign-ins, SSO logins). */
export const identityEvents = [
  UserCreated,
  UserUpdated,
  UserPasswordChanged,
  UserPasswordRehashed,
  UserDeactivated,
  UserReactivated,
  UserSessionsRevoked,
  UserGroupsObserved,
  SessionStarted,
  SessionRefreshed,
  SessionEnded,
  SignInSucceeded,
  SignInFailed,
  SsoLoginStarted,
  SsoLoginCompleted,
] as const;
