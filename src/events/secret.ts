import { z } from 'zod';
import { catalogEvents } from '../commands/catalog-entity.js';

export const SECRET_PROVIDERS = ['aws', 'gcp', 'custom'] as const;
export const SECRET_TYPES = ['tofu'] as const;

/** Where a secret's write-only values sit inside its fields: encrypted in events, never shown. */
export const SECRET_VALUE_PATHS = ['configuration.secrets[].value'] as const;

export const secretFields = z.object({
  name: z.string(),
  secretProvider: z.enum(SECRET_PROVIDERS),
  secretType: z.enum(SECRET_TYPES),
  configuration: z.record(z.string(), z.unknown()),
  // Only custom secrets may go without an integration (SPEC §2).
  integrationId: z.string().nullable(),
  description: z.string(),
  labels: z.array(z.string()),
});

export type SecretFields = z.infer<typeof secretFields>;

export const secretEvents = catalogEvents('Secret', secretFields, SECRET_VALUE_PATHS);
