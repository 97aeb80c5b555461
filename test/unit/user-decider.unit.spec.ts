import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import { userAggregate, type UserCommand, type UserFields } from '../../src/commands/user.js';
import type { UserEvent } from '../../src/events/identity.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(userAggregate);

const ID = '11111111-1111-4111-8111-111111111111';
const HASH = 'scrypt$32768$8$1$c2FsdA==$aGFzaA==';

const serviceAccount: UserFields = {
  kind: 'service_account',
  identifier: 'Deploy-Bot',
  email: null,
  displayName: 'Deploy bot',
  provider: 'svc_service_account',
  subject: null,
  roles: ['infra'],
  grants: ['audit_log:read'],
  passwordHash: HASH,
};
const human: UserFields = {
  kind: 'human',
  identifier: 'jane@example.com',
  email: 'jane@example.com',
  displayName: 'Jane',
  provider: 'github',
  subject: '4242',
  roles: ['default'],
  grants: [],
  passwordHash: null,
};
const guest: UserFields = {
  ...human,
  kind: 'guest',
  identifier: 'guest',
  email: null,
  displayName: 'Guest',
  provider: 'guest',
  subject: null,
};

const create = (fields: UserFields): UserCommand => ({ type: 'CreateUser', data: { id: ID, ...fields } });
const createdAs = (fields: UserFields): UserEvent => ({
  type: 'UserCreated',
  data: { id: ID, ...fields, roles: [...fields.roles], grants: [...fields.grants] },
});
const created = createdAs(serviceAccount);
const update = (changes: Extract<UserCommand, { type: 'UpdateUser' }>['data']['changes']): UserCommand => ({
  type: 'UpdateUser',
  data: { changes },
});
const deactivate: UserCommand = { type: 'DeactivateUser' };
const reactivate: UserCommand = { type: 'ReactivateUser' };
const deactivated: UserEvent = { type: 'UserDeactivated', data: {} };
const reactivated: UserEvent = { type: 'UserReactivated', data: {} };
const REVOKED_AT = '2024-01-01T10:00:00.000Z';
const revoke = (before = REVOKED_AT): UserCommand => ({ type: 'RevokeSessions', data: { before } });
const notFound = { code: 'NOT_FOUND', message: 'user not found' } as const;
const passwordRefusal = (message: string) => ({ code: 'UNPROCESSABLE', message, errors: [{ field: 'password', message }] }) as const;

describe('when a user is created', () => {
  it('records a service account with its password hash, roles and grants', () => {
    spec.given([]).when(create(serviceAccount)).then([created]);
  });

  it('records a human (SSO) user and a guest without a password', () => {
    spec
      .given([])
      .when(create(human))
      .then([createdAs(human)]);
    spec
      .given([])
      .when(create(guest))
      .then([createdAs(guest)]);
  });

  it('is refused when a user with that id already exists', () => {
    spec
      .given([created])
      .when(create(serviceAccount))
      .thenThrows({ code: 'ALREADY_EXISTS', message: `user ${ID} already exists` });
  });

  it('refuses a service account without a password', () => {
    spec
      .given([])
      .when(create({ ...serviceAccount, passwordHash: null }))
      .thenThrows(passwordRefusal('a service account needs a password'));
    spec
      .given([])
      .when(create({ ...serviceAccount, passwordHash: '' }))
      .thenThrows(passwordRefusal('a service account needs a password'));
  });

  it('refuses a password for a human or a guest: only service accounts sign in with one', () => {
    spec
      .given([])
      .when(create({ ...human, passwordHash: HASH }))
      .thenThrows(passwordRefusal('only service accounts sign in with a password'));
    spec
      .given([])
      .when(create({ ...guest, passwordHash: HASH }))
      .thenThrows(passwordRefusal('only service accounts sign in with a password'));
  });

  it('copies the roles and grants, so the caller mutating its arrays cannot change the event', () => {
    const roles = ['default'];
    const events = userAggregate.decide({ type: 'CreateUser', data: { id: ID, ...serviceAccount, roles } }, userAggregate.initialState);
    roles.push('super');
    expect(events).toEqual([{ type: 'UserCreated', data: { id: ID, ...serviceAccount, roles: ['default'] } }]);
  });
});

describe('when a user is updated', () => {
  it('records only the fields that change', () => {
    spec
      .given([created])
      .when(update({ displayName: 'Deploy bot', roles: ['infra', 'super'], grants: ['audit_log:read'], email: 'bot@example.com' }))
      .then([{ type: 'UserUpdated', data: { changes: { roles: ['infra', 'super'], email: 'bot@example.com' } } }]);
  });

  it('records a change of grants alone', () => {
    spec
      .given([created])
      .when(update({ grants: ['audit_log:read', 'template:admin'] }))
      .then([{ type: 'UserUpdated', data: { changes: { grants: ['audit_log:read', 'template:admin'] } } }]);
  });

  it('records clearing the display name', () => {
    spec
      .given([created])
      .when(update({ displayName: null }))
      .then([{ type: 'UserUpdated', data: { changes: { displayName: null } } }]);
  });

  it('changes nothing when every field is as it was', () => {
    spec
      .given([created])
      .when(update({ displayName: 'Deploy bot', roles: ['infra'], grants: ['audit_log:read'], email: null }))
      .then([]);
  });

  it('changes nothing for an empty change set or keys whose value is undefined', () => {
    spec.given([created]).when(update({})).then([]);
    spec
      .given([created])
      .when(update({ displayName: undefined, roles: undefined }))
      .then([]);
  });

  it('compares against the state after earlier updates', () => {
    const promoted: UserEvent = { type: 'UserUpdated', data: { changes: { roles: ['super'] } } };
    spec
      .given([created, promoted])
      .when(update({ roles: ['super'] }))
      .then([]);
    spec
      .given([created, promoted])
      .when(update({ roles: ['infra'] }))
      .then([{ type: 'UserUpdated', data: { changes: { roles: ['infra'] } } }]);
  });

  it('is refused as not found for a user that does not exist', () => {
    spec
      .given([])
      .when(update({ roles: ['super'] }))
      .thenThrows(notFound);
  });
});

describe("when a user's password is changed", () => {
  const change = (passwordHash: string): UserCommand => ({ type: 'ChangePassword', data: { passwordHash } });

  it('records the new hash of a service account', () => {
    spec
      .given([created])
      .when(change('scrypt$new'))
      .then([{ type: 'UserPasswordChanged', data: { passwordHash: 'scrypt$new' } }]);
  });

  it('refuses a password for a human or a guest', () => {
    spec
      .given([createdAs(human)])
      .when(change('scrypt$new'))
      .thenThrows(passwordRefusal('only service accounts sign in with a password'));
    spec
      .given([createdAs(guest)])
      .when(change('scrypt$new'))
      .thenThrows(passwordRefusal('only service accounts sign in with a password'));
  });

  it('is refused as not found for a user that does not exist', () => {
    spec.given([]).when(change('scrypt$new')).thenThrows(notFound);
  });
});

describe("when a service account's password is rehashed at sign-in", () => {
  const rehash = (previousHash: string): UserCommand => ({
    type: 'RehashPassword',
    data: { previousHash, passwordHash: 'scrypt$131072$stronger' },
  });

  it('records the stronger hash while the stored one is the one the sign-in verified', () => {
    spec
      .given([created])
      .when(rehash(HASH))
      .then([{ type: 'UserPasswordRehashed', data: { passwordHash: 'scrypt$131072$stronger' } }]);
  });

  it('records nothing when the password changed since: the change wins', () => {
    spec
      .given([created, { type: 'UserPasswordChanged', data: { passwordHash: 'scrypt$changed' } }])
      .when(rehash(HASH))
      .then([]);
  });

  it('keeps the new hash as the password from then on', () => {
    const state = fold(userAggregate, [created, { type: 'UserPasswordRehashed', data: { passwordHash: 'scrypt$131072$stronger' } }]);
    expect(state.status === 'active' && state.fields.passwordHash).toBe('scrypt$131072$stronger');
  });
});

describe('when a user is deactivated or reactivated', () => {
  it('records the deactivation of an active user', () => {
    spec.given([created]).when(deactivate).then([deactivated]);
  });

  it('changes nothing when deactivating a deactivated user', () => {
    spec.given([created, deactivated]).when(deactivate).then([]);
  });

  it('records the reactivation of a deactivated user', () => {
    spec.given([created, deactivated]).when(reactivate).then([reactivated]);
  });

  it('changes nothing when reactivating an active user', () => {
    spec.given([created]).when(reactivate).then([]);
    spec.given([created, deactivated, reactivated]).when(reactivate).then([]);
  });

  it('deactivates again after a reactivation', () => {
    spec.given([created, deactivated, reactivated]).when(deactivate).then([deactivated]);
  });

  it('is refused as not found for a user that does not exist', () => {
    spec.given([]).when(deactivate).thenThrows(notFound);
    spec.given([]).when(reactivate).thenThrows(notFound);
  });
});

describe("when a user's sessions are revoked", () => {
  it('records the instant before which every token is refused', () => {
    spec
      .given([created])
      .when(revoke())
      .then([{ type: 'UserSessionsRevoked', data: { before: REVOKED_AT } }]);
  });

  it('records every revocation, also a repeated one (each moves the instant)', () => {
    const first: UserEvent = { type: 'UserSessionsRevoked', data: { before: REVOKED_AT } };
    spec
      .given([created, first])
      .when(revoke('2024-01-01T11:00:00.000Z'))
      .then([{ type: 'UserSessionsRevoked', data: { before: '2024-01-01T11:00:00.000Z' } }]);
  });

  it('revokes the sessions of a deactivated user too', () => {
    spec
      .given([created, deactivated])
      .when(revoke())
      .then([{ type: 'UserSessionsRevoked', data: { before: REVOKED_AT } }]);
  });

  it('is refused as not found for a user that does not exist', () => {
    spec.given([]).when(revoke()).thenThrows(notFound);
  });
});

describe('the user aggregate', () => {
  it('folds its events into the current fields, activity and revocation instant', () => {
    const state = fold(userAggregate, [
      created,
      { type: 'UserUpdated', data: { changes: { roles: ['super'], displayName: null } } },
      { type: 'UserPasswordChanged', data: { passwordHash: 'scrypt$new' } },
      deactivated,
      { type: 'UserSessionsRevoked', data: { before: REVOKED_AT } },
    ]);
    expect(state).toEqual({
      status: 'active',
      id: ID,
      fields: { ...serviceAccount, roles: ['super'], displayName: null, passwordHash: 'scrypt$new' },
      deactivated: true,
      sessionsRevokedBefore: REVOKED_AT,
      groups: [],
    });
  });

  it('holds its identifier (case-insensitively) as a unique value', () => {
    expect(userAggregate.uniqueKeys(fold(userAggregate, [created]))).toEqual([
      { key: 'user-identifier:deploy-bot', field: 'identifier', message: 'a user with the identifier "Deploy-Bot" already exists' },
    ]);
  });

  it('holds an SSO user by (provider, subject) as well', () => {
    expect(userAggregate.uniqueKeys(fold(userAggregate, [createdAs(human)]))).toEqual([
      {
        key: 'user-identifier:jane@example.com',
        field: 'identifier',
        message: 'a user with the identifier "jane@example.com" already exists',
      },
      { key: 'user-subject:github:4242', field: 'subject', message: 'a user for github subject 4242 already exists' },
    ]);
  });

  it('holds nothing before it exists, and its stream id is user-<id>', () => {
    expect(userAggregate.uniqueKeys(userAggregate.initialState)).toEqual([]);
    expect(userAggregate.streamId(ID)).toBe(`user-${ID}`);
  });
});
