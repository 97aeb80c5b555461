import { z } from 'zod';
import { lifecycleEvents } from '../commands/lifecycle-entity.js';

export const STORAGE_PROVIDERS = ['aws', 'azurerm', 'gcp'] as const;

export const storageFields = z.object({
  name: z.string(),
  storageProvider: z.enum(STORAGE_PROVIDERS),
  storageType: z.string(),
  configuration: z.record(z.string(), z.unknown()),
  integrationId: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
});

export type StorageFields = z.infer<typeof storageFields>;

export const storageEvents = lifecycleEvents('Storage', storageFields);
