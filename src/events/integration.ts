import { z } from 'zod';
import { catalogEvents } from '../commands/catalog-entity.js';

export const INTEGRATION_PROVIDERS = {
  cloud: ['aws', 'azurerm', 'gcp', 'mongodb_atlas', 'datadog'],
  git: ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'],
  notification: ['slack'],
} as const;

/** Configuration keys holding secrets, whatever the provider: encrypted in events, never shown. */
export const INTEGRATION_SECRET_KEYS = ['awsSecretAccessKey', 'clientSecret', 'gcpServiceAccountKey', 'privateKey', 'apiKey', 'appKey', 'botToken', 'token'] as const;

export const integrationFields = z.object({
  name: z.string(),
  integrationType: z.enum(['cloud', 'git', 'notification']),
  integrationProvider: z.string(),
  configuration: z.record(z.string(), z.unknown()),
  description: z.string(),
  labels: z.array(z.string()),
});

export type IntegrationFields = z.infer<typeof integrationFields>;

export const integrationEvents = catalogEvents(
  'Integration',
  integrationFields,
  INTEGRATION_SECRET_KEYS.map((k) => `configuration.${k}`),
);
