import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

export const templateStatus = z.enum(['enabled', 'disabled']);

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

/** Everything but the slug, which is immutable. */
export const templateChangesSchema = templateFieldsSchema.omit({ template: true }).partial();
export type TemplateChanges = z.infer<typeof templateChangesSchema>;

export const TemplateCreated = defineEvent('TemplateCreated', templateFieldsSchema.extend({ id: z.string(), status: templateStatus }));
export const TemplateUpdated = defineEvent('TemplateUpdated', z.object({ changes: templateChangesSchema }));
export const TemplateEnabled = defineEvent('TemplateEnabled', z.object({}));
export const TemplateDisabled = defineEvent('TemplateDisabled', z.object({}));
export const TemplateDeleted = defineEvent('TemplateDeleted', z.object({}));

export type TemplateEvent =
  | EventOf<typeof TemplateCreated>
  | EventOf<typeof TemplateUpdated>
  | EventOf<typeof TemplateEnabled>
  | EventOf<typeof TemplateDisabled>
  | EventOf<typeof TemplateDeleted>;

export const templateEvents = [TemplateCreated, TemplateUpdated, TemplateEnabled, TemplateDisabled, TemplateDeleted] as const;
