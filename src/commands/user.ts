import { AppError, notFound } from '../errors.js';
import type { UserEvent } from '../events/identity.js';
import { defineAggregate, type Aggregate, type UniqueKey } from './decider.js';
import { withDefaults, type AccountChanges, type AccountCreateData, type AccountFields } from '../model/account.js';
import { userEntity, type USER_KINDS } from '../model/user.js';

/** What kind of user an account is. */
export type UserKind = (typeof USER_KINDS)[number];

/** The fields a user keeps (src/model/user.ts). */
export type UserFields = AccountFields<typeof userEntity>;

/** What a user can be asked to do. */
export type UserCommand =
  /** Fields with a declared default may be left out (a field added later changes no creator). */
  | { readonly type: 'CreateUser'; readonly data: AccountCreateData<typeof userEntity> }
  | { readonly type: 'UpdateUser'; readonly data: { readonly changes: AccountChanges<typeof userEntity> } }
  | { readonly type: 'ChangePassword'; readonly data: { readonly passwordHash: string } }
  /** Replaces `previousHash` by a stronger hash of the same password; nothing when the hash has changed since. */
  | { readonly type: 'RehashPassword'; readonly data: { readonly previousHash: string; readonly passwordHash: string } }
  | { readonly type: 'DeactivateUser' }
  | { readonly type: 'ReactivateUser' }
  | { readonly type: 'RevokeSessions'; readonly data: { readonly before: string } }
  /** Records the groups a sign-in reported (sorted, without repeats); nothing when they are the ones recorded. */
  | { readonly type: 'ObserveGroups'; readonly data: { readonly groups: readonly string[] } };

/** A user's write model. */
export type UserState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active';
      readonly id: string;
      readonly fields: UserFields;
      readonly deactivated: boolean;
      readonly sessionsRevokedBefore: string | null;
      readonly groups: readonly string[];
    };

const field = (name: string, message: string): AppError => new AppError('UNPROCESSABLE', message, { errors: [{ field: name, message }] });

function requireUser(state: UserState): Extract<UserState, { status: 'active' }> {
  if (state.status !== 'active') throw notFound('user not found');
  return state;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser': {
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `user ${command.data.id} already exists`);
      const data = withDefaults(userEntity, command.data);
      if (data.kind === 'service_account' && !data.passwordHash) throw field('password', 'a service account needs a password');
      if (data.kind !== 'service_account' && data.passwordHash) throw field('password', 'only service accounts sign in with a password');
      return [{ type: 'UserCreated', data: { ...data, roles: [...data.roles], grants: [...data.grants] } }];
    }
    case 'UpdateUser': {
      const user = requireUser(state);
      // Only what really changes: a PATCH that changes nothing writes no event.
      const changes = Object.fromEntries(
        // A caller may pass a key with an undefined value (the types cannot see it): it is no change.
        Object.entries(command.data.changes).filter(
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          ([key, value]) => value !== undefined && !same(value, user.fields[key as keyof UserFields]),
        ),
      ) as Extract<UserEvent, { type: 'UserUpdated' }>['data']['changes'];
      return Object.keys(changes).length === 0 ? [] : [{ type: 'UserUpdated', data: { changes } }];
    }
    case 'ChangePassword': {
      const user = requireUser(state);
      if (user.fields.kind !== 'service_account') throw field('password', 'only service accounts sign in with a password');
      return [{ type: 'UserPasswordChanged', data: { passwordHash: command.data.passwordHash } }];
    }
    case 'RehashPassword': {
      const user = requireUser(state);
      return user.fields.passwordHash === command.data.previousHash
        ? [{ type: 'UserPasswordRehashed', data: { passwordHash: command.data.passwordHash } }]
        : [];
    }
    case 'DeactivateUser':
      return requireUser(state).deactivated ? [] : [{ type: 'UserDeactivated', data: {} }];
    case 'ReactivateUser':
      return requireUser(state).deactivated ? [{ type: 'UserReactivated', data: {} }] : [];
    case 'RevokeSessions':
      requireUser(state);
      return [{ type: 'UserSessionsRevoked', data: { before: command.data.before } }];
    case 'ObserveGroups': {
      const user = requireUser(state);
      const groups = [...new Set(command.data.groups)].sort();
      return same(groups, user.groups) ? [] : [{ type: 'UserGroupsObserved', data: { groups } }];
    }
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: UserState, event: UserEvent): UserState {
  if (event.type === 'UserCreated') {
    const { id, ...fields } = event.data;
    return { status: 'active', id, fields, deactivated: false, sessionsRevokedBefore: null, groups: [] };
  }
  if (state.status === 'absent') return state;
  switch (event.type) {
    case 'UserUpdated':
      return { ...state, fields: { ...state.fields, ...event.data.changes } };
    case 'UserPasswordChanged':
    case 'UserPasswordRehashed':
      return { ...state, fields: { ...state.fields, passwordHash: event.data.passwordHash } };
    case 'UserDeactivated':
      return { ...state, deactivated: true };
    case 'UserReactivated':
      return { ...state, deactivated: false };
    case 'UserSessionsRevoked':
      return { ...state, sessionsRevokedBefore: event.data.before };
    case 'UserGroupsObserved':
      return { ...state, groups: event.data.groups };
  }
}

/** Identifiers are unique case-insensitively; an SSO user is unique per (provider, subject). */
function uniqueKeys(state: UserState): UniqueKey[] {
  if (state.status !== 'active') return [];
  const { identifier, provider, subject } = state.fields;
  const keys: UniqueKey[] = [
    {
      key: `user-identifier:${identifier.toLowerCase()}`,
      field: 'identifier',
      message: `a user with the identifier "${identifier}" already exists`,
    },
  ];
  if (provider && subject)
    keys.push({
      key: `user-subject:${provider}:${subject}`,
      field: 'subject',
      message: `a user for ${provider} subject ${subject} already exists`,
    });
  return keys;
}

/** The user aggregate: identifiers and SSO subjects unique; deactivation and session revocation. */
export const userAggregate: Aggregate<UserCommand, UserEvent, UserState> = defineAggregate('user', {
  initialState: { status: 'absent' },
  decide,
  evolve,
  uniqueKeys,
});
