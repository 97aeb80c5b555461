import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

export const SECRET_PROVIDERS = ['aws', 'gcp', 'custom'] as const;
export const SECRET_TYPES = ['tofu'] as const;

/** Where a secret's write-only values sit inside its fields: encrypted in events, never shown. */
export const SECRET_VALUE_PATHS = ['configuration.secrets[].value'] as const;

export const secretFields = z.object({
  name: z.string(),
  secretProvider: z.enum(SECRET_PROVIDERS),
  secretType: z.enum(SECRET_TYPES),
  configuration: z.record(z.string(), z.unknown()),
  // Only custom secrets may go without an integration (docs/contract.md §2).
  integrationId: z.string().nullable(),
  description: z.string(),
  labels: z.array(z.string()),
});

export type SecretFields = z.infer<typeof secretFields>;

/** The Secret event types, spelled out. */
export const secretEventTypes = {
  created: 'SecretCreated',
  updated: 'SecretUpdated',
  enabled: 'SecretEnabled',
  disabled: 'SecretDisabled',
  deleted: 'SecretDeleted',
} as const satisfies CatalogEventTypes<'Secret'>;

export const secretEvents = catalogEvents(secretEventTypes, secretFields, SECRET_VALUE_PATHS);

/** Every Secret event, typed by its literal name. */
export type SecretEvent = EventOf<(typeof secretEvents)[number]>;
