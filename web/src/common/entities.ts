/** Audit `entityType` (a stream kind) → the UI's resource and the page that shows one. */
export const RESOURCE_OF_KIND: Readonly<Record<string, { readonly resource: string; readonly page: 'show' | 'edit' }>> = {
  template: { resource: 'templates', page: 'show' },
  integration: { resource: 'integrations', page: 'show' },
  secret: { resource: 'secrets', page: 'show' },
  workspace: { resource: 'workspaces', page: 'show' },
  source_code: { resource: 'source_codes', page: 'show' },
  source_code_version: { resource: 'source_code_versions', page: 'show' },
  storage: { resource: 'storages', page: 'show' },
  executor: { resource: 'executors', page: 'show' },
  resource: { resource: 'resources', page: 'show' },
  team: { resource: 'teams', page: 'show' },
  webhook: { resource: 'webhooks', page: 'show' },
  auth_provider: { resource: 'auth_providers', page: 'edit' },
  user: { resource: 'users', page: 'edit' },
  sign_in: { resource: 'users', page: 'edit' },
};

/** The kinds a webhook may ask for (src/model/webhook.ts `WEBHOOK_KINDS`; a unit test keeps them equal). */
export const WEBHOOK_KINDS = [
  'template',
  'integration',
  'secret',
  'workspace',
  'source_code',
  'source_code_version',
  'storage',
  'executor',
  'resource',
  'team',
] as const;

/** Every entity type the audit log names: the catalog kinds and teams, then the rest. */
export const ENTITY_TYPES = [...WEBHOOK_KINDS, 'webhook', 'auth_provider', 'user', 'session', 'sign_in', 'personal_access_token'] as const;

/** `approval_pending` → `approval pending`. */
export const words = (value: string): string => value.replaceAll('_', ' ');

export const choices = (values: readonly string[]) => values.map((id) => ({ id, name: words(id) }));
