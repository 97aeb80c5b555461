import { type SecretFields, secretEventTypes } from '../events/secret.js';
import { catalogAggregate } from './catalog-entity.js';

/**
 * Secrets: unique by name (case-insensitive); the provider is fixed at creation; every provider but
 * `custom` needs an integration (whose kind the HTTP edge checks, as it needs a read of that stream).
 */
export const secretAggregate = catalogAggregate<SecretFields>({
  kind: 'secret',
  events: secretEventTypes,
  immutable: ['secretProvider'],
  uniqueKeys: (f) => [{ key: `secret-name:${f.name.toLowerCase()}`, field: 'name', message: `a secret named "${f.name}" already exists` }],
  references: (f) => (f.integrationId === null ? [] : [{ kind: 'integration', id: f.integrationId, field: 'integrationId' }]),
  check: (f) =>
    f.secretProvider !== 'custom' && f.integrationId === null
      ? [{ field: 'integrationId', message: `integrationId is required for ${f.secretProvider} secrets (only custom secrets may go without)` }]
      : [],
});
