import { integrationEventTypes, integrationFields } from '../events/integration.js';
import { INTEGRATION_SECRET_PATHS } from '../events/integration.js';
import { redactSecrets } from '../events/secret-fields.js';
import { catalogProjection } from './catalog-projection.js';

/** The integrations read model (secret configuration values masked). */
export const integrationsProjection = catalogProjection({
  table: 'integrations',
  kind: 'integration',
  events: integrationEventTypes,
  fields: integrationFields,
  columns: { name: 'text', integration_type: 'text', integration_provider: 'text', configuration: 'jsonb' },
  mask: (fields) => redactSecrets(fields, INTEGRATION_SECRET_PATHS),
});
