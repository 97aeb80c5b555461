import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { sourceCodeEntity } from '../model/source-code.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a SourceCode event carries, as stored (already validated at the edge): from its declaration. */
export const sourceCodeFields = storedFieldsSchema(sourceCodeEntity);

/** The fields a sourceCode keeps. */
export type SourceCodeFields = z.infer<typeof sourceCodeFields>;

/** The SourceCode event types, spelled out. */
export const sourceCodeEventTypes = {
  created: 'SourceCodeCreated',
  updated: 'SourceCodeUpdated',
  enabled: 'SourceCodeEnabled',
  disabled: 'SourceCodeDisabled',
  deleted: 'SourceCodeDeleted',
} as const satisfies CatalogEventTypes<'SourceCode'>;

/** The sourceCode event definitions: write-only paths and versions from the declaration. */
export const sourceCodeEvents = catalogEvents(
  sourceCodeEventTypes,
  sourceCodeFields,
  secretPathsOf(sourceCodeEntity),
  createdEventVersioning(sourceCodeEntity),
);

/** Every SourceCode event, typed by its literal name. */
export type SourceCodeEvent = EventOf<(typeof sourceCodeEvents)[number]>;
