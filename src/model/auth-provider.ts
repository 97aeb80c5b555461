import { z } from 'zod';
import type { AccountDeclaration } from './account.js';
import { AUTH_PROVIDER_TYPES, providerConfigurationSchemas } from './auth-provider-configuration.js';

export { AUTH_PROVIDER_TYPES };

/** A message for a wrong value, or `required` when there is none. */
const orRequired = (message: string) => (issue: { readonly input: unknown }) => (issue.input === undefined ? 'required' : message);

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
    name: {
      kind: 'text',
      description: 'Unique display name.',
      input: z
        .string({ error: orRequired('must be a string') })
        .trim()
        .min(1, 'must not be empty')
        .max(200, 'at most 200 characters'),
      required: true,
      search: true,
    },
    key: {
      kind: 'text',
      description: 'Slug used in URLs (`/api/auth/{key}/login`), unique; the type when left out. Never changes.',
      input: z
        .string({ error: 'must be a string' })
        .regex(/^[a-z0-9_-]+$/, 'must match [a-z0-9_-]+')
        .max(100, 'at most 100 characters'),
      immutable: true,
      search: true,
    },
    type: {
      kind: 'enum',
      values: AUTH_PROVIDER_TYPES,
      description: 'The provider type; its configuration and domain filter are checked for it. Never changes.',
      input: z.enum(AUTH_PROVIDER_TYPES, { error: orRequired(`must be one of ${AUTH_PROVIDER_TYPES.join(', ')}`) }),
      required: true,
      immutable: true,
    },
    description: {
      kind: 'text',
      description: 'Free text.',
      input: z.string({ error: 'must be a string' }).max(10_000, 'at most 10000 characters'),
      default: '',
    },
    enabled: {
      kind: 'boolean',
      description: 'Whether sign-in through it works.',
      input: z.boolean({ error: 'must be true or false' }),
      default: true,
    },
    configuration: {
      kind: 'json',
      description: 'Type-specific settings; secrets are shown as `********`.',
      // Checked against the provider type's schema once the type is known (src/edge/writes/auth-providers.ts).
      input: z.record(z.string(), z.unknown(), { error: orRequired('must be a JSON object') }),
      required: true,
      variants: { by: 'type', schemas: providerConfigurationSchemas },
    },
    filterByDomain: {
      kind: 'textList',
      description: 'E-mail domains allowed to sign in (empty: any); at most one for github and microsoft.',
      // One domain or a list, by type: checked once the type is known.
      input: z.unknown(),
    },
  },
  state: {
    deletedAt: { kind: 'text', description: 'When it was deleted.', nullable: true, initial: null, timestamp: true, hidden: true },
  },
  // `key` is immutable to clients, but the event has always allowed it (a rename of a shipped key).
  updatable: ['key', 'name', 'description', 'configuration', 'filterByDomain'],
  secretPaths: PROVIDER_SECRET_KEYS.map((key) => `configuration.${key}`),
  creator: true,
} as const satisfies AccountDeclaration;
