import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/** Every auth provider type. */
export const AUTH_PROVIDER_TYPES = [
  'github',
  'google',
  'microsoft',
  'backstage',
  'personal_access_token',
  'svc_service_account',
  'guest',
] as const;
/** An auth provider type, validated. */
export const authProviderType = z.enum(AUTH_PROVIDER_TYPES);
/** An auth provider type. */
export type AuthProviderType = z.infer<typeof authProviderType>;

/** Configuration keys that hold secrets, whatever the type (write-only, encrypted in the store). */
export const PROVIDER_SECRET_KEYS = ['clientSecret', 'privateKey'] as const;
const secretPaths = PROVIDER_SECRET_KEYS.map((k) => `configuration.${k}`);

/** An auth provider was created. */
export const AuthProviderCreated = defineEvent(
  'AuthProviderCreated',
  z.object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    type: authProviderType,
    description: z.string(),
    enabled: z.boolean(),
    configuration: z.record(z.string(), z.unknown()),
    filterByDomain: z.array(z.string()),
  }),
  { secretPaths },
);
/** An auth provider's fields changed. */
export const AuthProviderUpdated = defineEvent(
  'AuthProviderUpdated',
  z.object({
    changes: z
      .object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        configuration: z.record(z.string(), z.unknown()),
        filterByDomain: z.array(z.string()),
      })
      .partial(),
  }),
  { secretPaths: PROVIDER_SECRET_KEYS.map((k) => `changes.configuration.${k}`) },
);
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
