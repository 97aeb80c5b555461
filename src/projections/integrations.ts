import { integrationEventTypes, integrationFields } from '../events/integration.js';
import { integrationEntity } from '../model/integration.js';
import { declaredProjection } from './catalog-projection.js';

/** The integrations read model: columns, link tables and masking from the declaration. */
export const integrationsProjection = declaredProjection(integrationEntity, integrationEventTypes, integrationFields);
