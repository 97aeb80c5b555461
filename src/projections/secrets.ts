import { secretEventTypes, secretFields } from '../events/secret.js';
import { SECRET_VALUE_PATHS } from '../events/secret.js';
import { redactSecrets } from '../events/secret-fields.js';
import { catalogProjection } from './catalog-projection.js';

/** The secrets read model; custom secret values are stored as "********", never in clear. */
export const secretsProjection = catalogProjection({
  table: 'secrets',
  kind: 'secret',
  events: secretEventTypes,
  fields: secretFields,
  columns: { name: 'text', secret_provider: 'text', secret_type: 'text', configuration: 'jsonb', integration_id: 'uuid' },
  mask: (fields) => redactSecrets(fields, SECRET_VALUE_PATHS),
});
