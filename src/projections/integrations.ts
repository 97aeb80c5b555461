import { integrationEventTypes, integrationFields } from '../events/integration.js';
import { INTEGRATION_SECRET_KEYS } from '../events/integration.js';
import { REDACTED } from '../events/secret-fields.js';
import { catalogProjection } from './catalog-projection.js';

/** Secret configuration values as anyone may see them. */
export function maskIntegrationConfiguration(configuration: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const masked: Record<string, unknown> = { ...configuration };
  for (const key of INTEGRATION_SECRET_KEYS) if (masked[key] !== undefined && masked[key] !== null && masked[key] !== '') masked[key] = REDACTED;
  return masked;
}

export const integrationsProjection = catalogProjection({
  table: 'integrations',
  kind: 'integration',
  events: integrationEventTypes,
  fields: integrationFields,
  columns: { name: 'text', integration_type: 'text', integration_provider: 'text', configuration: 'jsonb' },
  mask: (fields) => (fields.configuration ? { ...fields, configuration: maskIntegrationConfiguration(fields.configuration as Record<string, unknown>) } : fields),
});
