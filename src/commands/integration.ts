import { integrationEventTypes, type IntegrationFields } from '../events/integration.js';
import { integrationEntity } from '../model/integration.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** Integrations: unique by name (case-insensitive); type and provider fixed at creation (all declared). */
export const integrationAggregate = catalogAggregate<IntegrationFields>({
  ...declaredRules(integrationEntity),
  events: integrationEventTypes,
});
