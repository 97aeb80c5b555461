import { describe, expect, it } from 'vitest';
import { authProviderAggregate, LAST_SUPER_SIGN_IN, type AuthProviderCommand } from '../../src/commands/auth-provider.js';
import { fold } from '../../src/commands/decider.js';
import type { AuthProviderEvent } from '../../src/events/auth-provider.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(authProviderAggregate);

const ID = '33333333-3333-4333-8333-333333333333';
const fields = {
  key: 'github',
  name: 'GitHub',
  type: 'github' as const,
  description: '',
  configuration: { clientId: 'Iv1.abc', clientSecret: 'shh', redirectUrl: 'https://catalog.example.com/api/auth/github/callback' },
  filterByDomain: ['example.com'],
};

const create: AuthProviderCommand = { type: 'CreateAuthProvider', data: { id: ID, enabled: true, ...fields } };
const created: AuthProviderEvent = { type: 'AuthProviderCreated', data: { id: ID, enabled: true, ...fields } };
const createdDisabled: AuthProviderEvent = { type: 'AuthProviderCreated', data: { id: ID, enabled: false, ...fields } };
const update = (changes: Extract<AuthProviderCommand, { type: 'UpdateAuthProvider' }>['data']['changes']): AuthProviderCommand => ({
  type: 'UpdateAuthProvider',
  data: { changes },
});
const enable: AuthProviderCommand = { type: 'EnableAuthProvider' };
const disable = (leavesSuperSignIn: boolean): AuthProviderCommand => ({ type: 'DisableAuthProvider', data: { leavesSuperSignIn } });
const remove = (leavesSuperSignIn: boolean): AuthProviderCommand => ({ type: 'DeleteAuthProvider', data: { leavesSuperSignIn } });
const enabled: AuthProviderEvent = { type: 'AuthProviderEnabled', data: {} };
const disabled: AuthProviderEvent = { type: 'AuthProviderDisabled', data: {} };
const deleted: AuthProviderEvent = { type: 'AuthProviderDeleted', data: {} };
const notFound = { code: 'NOT_FOUND', message: 'auth provider not found' } as const;
const lastSuper = { code: 'LAST_SUPER_ACCESS', message: LAST_SUPER_SIGN_IN } as const;

describe('when an auth provider is created', () => {
  it('records every field, configuration included', () => {
    spec.given([]).when(create).then([created]);
  });

  it('is refused when a provider with that id already exists', () => {
    spec
      .given([created])
      .when(create)
      .thenThrows({ code: 'ALREADY_EXISTS', message: `auth provider ${ID} already exists` });
  });
});

describe('when an auth provider is updated', () => {
  it('records only the fields that change', () => {
    const configuration = { ...fields.configuration, clientSecret: 'rotated' };
    spec
      .given([created])
      .when(update({ name: 'GitHub', description: 'Company GitHub', configuration }))
      .then([{ type: 'AuthProviderUpdated', data: { changes: { description: 'Company GitHub', configuration } } }]);
  });

  it('changes nothing when every field is as it was', () => {
    spec
      .given([created])
      .when(update({ name: 'GitHub', configuration: { ...fields.configuration }, filterByDomain: ['example.com'] }))
      .then([]);
  });

  it('accepts the unchanged type', () => {
    spec
      .given([created])
      .when(update({ type: 'github' }))
      .then([]);
  });

  it('refuses another type: the type is immutable', () => {
    const message = 'type is immutable (it is "github"); create another provider instead';
    spec
      .given([created])
      .when(update({ type: 'google' }))
      .thenThrows({ code: 'UNPROCESSABLE', message, errors: [{ field: 'type', message }] });
  });

  it('is refused as not found when the provider does not exist or was deleted', () => {
    spec
      .given([])
      .when(update({ name: 'x' }))
      .thenThrows(notFound);
    spec
      .given([created, deleted])
      .when(update({ name: 'x' }))
      .thenThrows(notFound);
  });
});

describe('when an auth provider is enabled or disabled', () => {
  it('records the enabling of a disabled provider', () => {
    spec.given([createdDisabled]).when(enable).then([enabled]);
  });

  it('changes nothing when enabling an enabled provider', () => {
    spec.given([created]).when(enable).then([]);
  });

  it('records the disabling when a super user can still sign in elsewhere', () => {
    spec.given([created]).when(disable(true)).then([disabled]);
  });

  it('changes nothing when disabling a disabled provider, whatever the super users', () => {
    spec.given([created, disabled]).when(disable(false)).then([]);
  });

  it('refuses to disable the last way in for super users', () => {
    spec.given([created]).when(disable(false)).thenThrows(lastSuper);
  });

  it('is refused as not found for a deleted provider', () => {
    spec.given([created, deleted]).when(enable).thenThrows(notFound);
    spec.given([created, deleted]).when(disable(true)).thenThrows(notFound);
  });
});

describe('when an auth provider is deleted', () => {
  it('records the deletion when a super user can still sign in elsewhere', () => {
    spec.given([created]).when(remove(true)).then([deleted]);
  });

  it('refuses to delete the last enabled way in for super users', () => {
    spec.given([created]).when(remove(false)).thenThrows(lastSuper);
  });

  it('deletes a disabled provider, which lets nobody in anyway', () => {
    spec.given([created, disabled]).when(remove(false)).then([deleted]);
  });

  it('is refused as not found the second time', () => {
    spec.given([created, deleted]).when(remove(true)).thenThrows(notFound);
  });
});

describe('the auth provider aggregate', () => {
  it('holds its key and its name (case-insensitively) as unique values', () => {
    expect(authProviderAggregate.uniqueKeys(fold(authProviderAggregate, [created]))).toEqual([
      { key: 'auth_provider-key:github', field: 'key', message: 'an auth provider with the key "github" already exists' },
      { key: 'auth_provider-name:github', field: 'name', message: 'an auth provider named "GitHub" already exists' },
    ]);
  });

  it('follows a renaming in its unique values', () => {
    const renamed: AuthProviderEvent = { type: 'AuthProviderUpdated', data: { changes: { name: 'Corp GitHub' } } };
    const keys = authProviderAggregate.uniqueKeys(fold(authProviderAggregate, [created, renamed])).map((k) => k.key);
    expect(keys).toEqual(['auth_provider-key:github', 'auth_provider-name:corp github']);
  });

  it('releases its unique values once deleted, and is deleted', () => {
    const state = fold(authProviderAggregate, [created, deleted]);
    expect(authProviderAggregate.uniqueKeys(state)).toEqual([]);
    expect(authProviderAggregate.isDeleted(state)).toBe(true);
  });

  it('holds no unique values before it exists and references nothing', () => {
    expect(authProviderAggregate.uniqueKeys(authProviderAggregate.initialState)).toEqual([]);
    expect(authProviderAggregate.references(fold(authProviderAggregate, [created]))).toEqual([]);
  });

  it('lives in the stream auth_provider-<id>', () => {
    expect(authProviderAggregate.streamId(ID)).toBe(`auth_provider-${ID}`);
  });
});
