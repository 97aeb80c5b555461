import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** Where a secret is kept. */
export const SECRET_PROVIDERS = ['aws', 'gcp', 'custom'] as const;
/** The formats a secret is consumed in. */
export const SECRET_TYPES = ['tofu'] as const;

/** Where a secret's write-only values sit inside its fields: encrypted in events, never shown. */
export const SECRET_VALUE_PATHS = ['configuration.secrets[].value'] as const;

/** The fields a secret keeps, as stored in its events. */
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

/** The fields a secret keeps. */
export type SecretFields = z.infer<typeof secretFields>;

/** The Secret event types, spelled out. */
export const secretEventTypes = {
  created: 'SecretCreated',
  updated: 'SecretUpdated',
  enabled: 'SecretEnabled',
  disabled: 'SecretDisabled',
  deleted: 'SecretDeleted',
} as const satisfies CatalogEventTypes<'Secret'>;

/** The secret event definitions. */
export const secretEvents = catalogEvents(secretEventTypes, secretFields, SECRET_VALUE_PATHS);

/** Every Secret event, typed by its literal name. */
export type SecretEvent = EventOf<(typeof secretEvents)[number]>;
