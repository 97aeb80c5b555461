import type { z } from 'zod';
import { createdEventVersioning, storedFieldsSchema } from '../model/entity.js';
import { templateEntity } from '../model/template.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** Fields a template keeps, as stored in its events (already validated at the edge): from its declaration. */
export const templateFieldsSchema = storedFieldsSchema(templateEntity);

/** The fields a template keeps. */
export type TemplateFields = z.infer<typeof templateFieldsSchema>;

/** The Template event types, spelled out. */
export const templateEventTypes = {
  created: 'TemplateCreated',
  updated: 'TemplateUpdated',
  enabled: 'TemplateEnabled',
  disabled: 'TemplateDisabled',
  deleted: 'TemplateDeleted',
} as const satisfies CatalogEventTypes<'Template'>;

/** The template event definitions, versioned by the declaration (fields added later are upcast). */
export const templateEvents = catalogEvents(templateEventTypes, templateFieldsSchema, [], createdEventVersioning(templateEntity));

/** Every Template event, typed by its literal name. */
export type TemplateEvent = EventOf<(typeof templateEvents)[number]>;
