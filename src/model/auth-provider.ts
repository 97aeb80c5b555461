import type { AccountDeclaration } from './account.js';

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

/** Configuration keys that hold secrets, whatever the type (write-only, encrypted in the store). */
export const PROVIDER_SECRET_KEYS = ['clientSecret', 'privateKey'] as const;

/**
 * Auth providers (docs/sign-in.md): the ways to sign in. Their commands (one provider per
 * single-instance type, callback URLs, the type-specific configuration) are src/commands/
 * auth-provider.ts and src/edge/writes/auth-providers.ts; their events, projection and table derive
 * from this declaration (./account.ts).
 */
export const authProviderEntity = {
  name: 'AuthProvider',
  kind: 'auth_provider',
  plural: 'auth_providers',
  table: 'auth_providers',
  description: 'A way to sign in (SSO, developer portal, tokens, service accounts, guest). Only `super` reads them.',
  fields: {
    key: { kind: 'text', description: 'Slug used in URLs (`/api/auth/{key}/login`), unique.', immutable: true, search: true },
    name: { kind: 'text', description: 'Unique display name.', search: true },
    type: { kind: 'enum', values: AUTH_PROVIDER_TYPES, description: 'The provider type.', immutable: true },
    description: { kind: 'text', description: 'Free text.' },
    enabled: { kind: 'boolean', description: 'Whether sign-in through it works.' },
    configuration: { kind: 'json', description: 'Type-specific settings; secrets are shown as `********`.' },
    filterByDomain: { kind: 'textList', description: 'E-mail domains allowed to sign in (empty: any).' },
  },
  state: {
    deletedAt: { kind: 'text', description: 'When it was deleted.', nullable: true, initial: null, timestamp: true, hidden: true },
  },
  // `key` is immutable to clients, but the event has always allowed it (a rename of a shipped key).
  updatable: ['key', 'name', 'description', 'configuration', 'filterByDomain'],
  secretPaths: PROVIDER_SECRET_KEYS.map((key) => `configuration.${key}`),
  creator: true,
} as const satisfies AccountDeclaration;
