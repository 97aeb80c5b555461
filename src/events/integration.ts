import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** The providers each integration type allows. */
export const INTEGRATION_PROVIDERS = {
  cloud: ['aws', 'azurerm', 'gcp', 'mongodb_atlas', 'datadog'],
  git: ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'],
  notification: ['slack'],
} as const;

/** Configuration keys holding secrets, whatever the provider: encrypted in events, never shown. */
export const INTEGRATION_SECRET_KEYS = ['awsSecretAccessKey', 'clientSecret', 'gcpServiceAccountKey', 'privateKey', 'apiKey', 'appKey', 'botToken', 'token'] as const;

/** The fields an integration keeps, as stored in its events. */
export const integrationFields = z.object({
  name: z.string(),
  integrationType: z.enum(['cloud', 'git', 'notification']),
  integrationProvider: z.string(),
  configuration: z.record(z.string(), z.unknown()),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields an integration keeps. */
export type IntegrationFields = z.infer<typeof integrationFields>;

/** The Integration event types, spelled out. */
export const integrationEventTypes = {
  created: 'IntegrationCreated',
  updated: 'IntegrationUpdated',
  enabled: 'IntegrationEnabled',
  disabled: 'IntegrationDisabled',
  deleted: 'IntegrationDeleted',
} as const satisfies CatalogEventTypes<'Integration'>;

/** Where the secret values sit inside an integration's fields. */
export const INTEGRATION_SECRET_PATHS = INTEGRATION_SECRET_KEYS.map((k) => `configuration.${k}`);

/** The integration event definitions. */
export const integrationEvents = catalogEvents(integrationEventTypes, integrationFields, INTEGRATION_SECRET_PATHS);

/** Every Integration event, typed by its literal name. */
export type IntegrationEvent = EventOf<(typeof integrationEvents)[number]>;
