import { AppError, notFound } from '../errors.js';
import type { AuthProviderEvent, AuthProviderType } from '../events/auth-provider.js';
import { defineAggregate, type Aggregate, type UniqueKey } from './decider.js';
import { withDefaults, type AccountChanges, type AccountCreateData, type AccountFields } from '../model/account.js';
import { authProviderEntity } from '../model/auth-provider.js';

/** The fields an auth provider keeps (src/model/auth-provider.ts), bar `enabled`, which its own events move. */
export type AuthProviderFields = Omit<AccountFields<typeof authProviderEntity>, 'enabled'>;

type Changes = AccountChanges<typeof authProviderEntity>;

/**
 * `leavesSuperSignIn`: looked up by the caller before disabling or deleting — whether some `super`
 * user could still sign in through another enabled provider afterwards.
 */
export type AuthProviderCommand =
  /** Fields with a declared default may be left out. */
  | { readonly type: 'CreateAuthProvider'; readonly data: AccountCreateData<typeof authProviderEntity> }
  | { readonly type: 'UpdateAuthProvider'; readonly data: { readonly changes: Changes & { readonly type?: AuthProviderType } } }
  | { readonly type: 'EnableAuthProvider' }
  | { readonly type: 'DisableAuthProvider'; readonly data: { readonly leavesSuperSignIn: boolean } }
  | { readonly type: 'DeleteAuthProvider'; readonly data: { readonly leavesSuperSignIn: boolean } };

interface Existing {
  readonly id: string;
  readonly fields: AuthProviderFields;
  readonly enabled: boolean;
}

/** An auth provider's write model. */
export type AuthProviderState =
  { readonly status: 'absent' } | (Existing & { readonly status: 'active' }) | (Existing & { readonly status: 'deleted' });

const SINGLE_INSTANCE_TYPES: ReadonlySet<string> = new Set(['svc_service_account', 'guest', 'personal_access_token']);

/** The refusal when a change would leave no super user a way to sign in. */
export const LAST_SUPER_SIGN_IN =
  'refused: no super user could sign in any more (keep another enabled provider that a super user signs in with)';

function requireActive(state: AuthProviderState): Existing {
  if (state.status !== 'active') throw notFound('auth provider not found');
  return state;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function decide(command: AuthProviderCommand, state: AuthProviderState): AuthProviderEvent[] {
  switch (command.type) {
    case 'CreateAuthProvider': {
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `auth provider ${command.data.id} already exists`);
      const d = withDefaults(authProviderEntity, command.data);
      return [
        { type: 'AuthProviderCreated', data: { ...d, configuration: { ...d.configuration }, filterByDomain: [...d.filterByDomain] } },
      ];
    }
    case 'UpdateAuthProvider': {
      const current = requireActive(state);
      const { type, ...rest } = command.data.changes;
      if (type !== undefined && type !== current.fields.type) {
        const message = `type is immutable (it is "${current.fields.type}"); create another provider instead`;
        throw new AppError('UNPROCESSABLE', message, { errors: [{ field: 'type', message }] });
      }
      // A caller may pass a key with an undefined value (the types cannot see it): it is no change.
      const changes = Object.fromEntries(
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        Object.entries(rest).filter(([k, v]) => v !== undefined && !same(v, current.fields[k as keyof AuthProviderFields])),
      );
      return Object.keys(changes).length === 0 ? [] : [{ type: 'AuthProviderUpdated', data: { changes } }];
    }
    case 'EnableAuthProvider':
      return requireActive(state).enabled ? [] : [{ type: 'AuthProviderEnabled', data: {} }];
    case 'DisableAuthProvider': {
      const current = requireActive(state);
      if (!current.enabled) return [];
      if (!command.data.leavesSuperSignIn) throw new AppError('LAST_SUPER_ACCESS', LAST_SUPER_SIGN_IN);
      return [{ type: 'AuthProviderDisabled', data: {} }];
    }
    case 'DeleteAuthProvider': {
      const current = requireActive(state);
      if (current.enabled && !command.data.leavesSuperSignIn) throw new AppError('LAST_SUPER_ACCESS', LAST_SUPER_SIGN_IN);
      return [{ type: 'AuthProviderDeleted', data: {} }];
    }
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: AuthProviderState, event: AuthProviderEvent): AuthProviderState {
  switch (event.type) {
    case 'AuthProviderCreated': {
      const { id, enabled, ...fields } = event.data;
      return { status: 'active', id, enabled, fields };
    }
    case 'AuthProviderUpdated':
      return state.status === 'absent' ? state : { ...state, fields: { ...state.fields, ...event.data.changes } };
    case 'AuthProviderEnabled':
      return state.status === 'absent' ? state : { ...state, enabled: true };
    case 'AuthProviderDisabled':
      return state.status === 'absent' ? state : { ...state, enabled: false };
    case 'AuthProviderDeleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted' };
  }
}

function uniqueKeys(state: AuthProviderState): UniqueKey[] {
  if (state.status !== 'active') return [];
  const { key, name, type } = state.fields;
  const keys: UniqueKey[] = [
    { key: `auth_provider-key:${key}`, field: 'key', message: `an auth provider with the key "${key}" already exists` },
    { key: `auth_provider-name:${name.toLowerCase()}`, field: 'name', message: `an auth provider named "${name}" already exists` },
  ];
  // These have one login path each (their endpoints are per type), so one provider of each at most.
  if (SINGLE_INSTANCE_TYPES.has(type))
    keys.push({ key: `auth_provider-type:${type}`, field: 'type', message: `an auth provider of type ${type} already exists` });
  return keys;
}

/** The auth provider aggregate: keys, names and single-instance types unique; the last super sign-in kept. */
export const authProviderAggregate: Aggregate<AuthProviderCommand, AuthProviderEvent, AuthProviderState> = defineAggregate(
  'auth_provider',
  {
    initialState: { status: 'absent' },
    decide,
    evolve,
    uniqueKeys,
  },
);
