import { type IntegrationFields, integrationEventTypes } from '../events/integration.js';
import { catalogAggregate } from './catalog-entity.js';

/** Integrations: unique by name (case-insensitive); type and provider fixed at creation. */
export const integrationAggregate = catalogAggregate<IntegrationFields>({
  kind: 'integration',
  events: integrationEventTypes,
  immutable: ['integrationType', 'integrationProvider'],
  uniqueKeys: (f) => [{ key: `integration-name:${f.name.toLowerCase()}`, field: 'name', message: `an integration named "${f.name}" already exists` }],
  references: () => [],
});
