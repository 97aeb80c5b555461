import { z } from 'zod';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** Fields a template keeps, as stored in its events (already validated at the edge). */
export const templateFieldsSchema = z.object({
  name: z.string(),
  template: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
  abstract: z.boolean(),
  cloudResourceTypes: z.array(z.string()),
  configuration: z.record(z.string(), z.unknown()),
  executorIds: z.array(z.string()),
  parentIds: z.array(z.string()),
});

export type TemplateFields = z.infer<typeof templateFieldsSchema>;

/** The Template event types, spelled out. */
export const templateEventTypes = {
  created: 'TemplateCreated',
  updated: 'TemplateUpdated',
  enabled: 'TemplateEnabled',
  disabled: 'TemplateDisabled',
  deleted: 'TemplateDeleted',
} as const satisfies CatalogEventTypes<'Template'>;

export const templateEvents = catalogEvents(templateEventTypes, templateFieldsSchema);

/** Every Template event, typed by its literal name. */
export type TemplateEvent = EventOf<(typeof templateEvents)[number]>;
