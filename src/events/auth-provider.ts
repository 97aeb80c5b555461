import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';
import {
  accountChangesSchema,
  accountCreatedSchema,
  accountVersioning,
  changedSecretPathsOf,
  secretPathsOfAccount,
} from '../model/account.js';
import { AUTH_PROVIDER_TYPES, authProviderEntity, PROVIDER_SECRET_KEYS } from '../model/auth-provider.js';

export { AUTH_PROVIDER_TYPES, PROVIDER_SECRET_KEYS };
/** An auth provider type, validated. */
export const authProviderType = z.enum(AUTH_PROVIDER_TYPES);
/** An auth provider type. */
export type AuthProviderType = z.infer<typeof authProviderType>;

/** An auth provider was created (src/model/auth-provider.ts): its secret configuration values encrypted in the store. */
export const AuthProviderCreated = defineEvent('AuthProviderCreated', accountCreatedSchema(authProviderEntity), {
  secretPaths: secretPathsOfAccount(authProviderEntity),
  ...accountVersioning(authProviderEntity),
});
/** Some of an auth provider's updatable fields changed. */
export const AuthProviderUpdated = defineEvent('AuthProviderUpdated', z.object({ changes: accountChangesSchema(authProviderEntity) }), {
  secretPaths: changedSecretPathsOf(authProviderEntity),
});
/** An auth provider was enabled. */
export const AuthProviderEnabled = defineEvent('AuthProviderEnabled', z.object({}));
/** An auth provider was disabled. */
export const AuthProviderDisabled = defineEvent('AuthProviderDisabled', z.object({}));
/** An auth provider was deleted. */
export const AuthProviderDeleted = defineEvent('AuthProviderDeleted', z.object({}));

/** Every auth provider event. */
export type AuthProviderEvent =
  | EventOf<typeof AuthProviderCreated>
  | EventOf<typeof AuthProviderUpdated>
  | EventOf<typeof AuthProviderEnabled>
  | EventOf<typeof AuthProviderDisabled>
  | EventOf<typeof AuthProviderDeleted>;

/** The auth provider event definitions. */
export const authProviderEvents = [
  AuthProviderCreated,
  AuthProviderUpdated,
  AuthProviderEnabled,
  AuthProviderDisabled,
  AuthProviderDeleted,
] as const;
