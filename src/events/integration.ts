import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { integrationEntity } from '../model/integration.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a Integration event carries, as stored (already validated at the edge): from its declaration. */
export const integrationFields = storedFieldsSchema(integrationEntity);

/** The fields a integration keeps. */
export type IntegrationFields = z.infer<typeof integrationFields>;

/** The Integration event types, spelled out. */
export const integrationEventTypes = {
  created: 'IntegrationCreated',
  updated: 'IntegrationUpdated',
  enabled: 'IntegrationEnabled',
  disabled: 'IntegrationDisabled',
  deleted: 'IntegrationDeleted',
} as const satisfies CatalogEventTypes<'Integration'>;

/** The integration event definitions: write-only paths and versions from the declaration. */
export const integrationEvents = catalogEvents(
  integrationEventTypes,
  integrationFields,
  secretPathsOf(integrationEntity),
  createdEventVersioning(integrationEntity),
);

/** Every Integration event, typed by its literal name. */
export type IntegrationEvent = EventOf<(typeof integrationEvents)[number]>;
