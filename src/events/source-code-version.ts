import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { sourceCodeVersionEntity } from '../model/source-code-version.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a SourceCodeVersion event carries, as stored (already validated at the edge): from its declaration. */
export const sourceCodeVersionFields = storedFieldsSchema(sourceCodeVersionEntity);

/** The fields a sourceCodeVersion keeps. */
export type SourceCodeVersionFields = z.infer<typeof sourceCodeVersionFields>;

/** The SourceCodeVersion event types, spelled out. */
export const sourceCodeVersionEventTypes = {
  created: 'SourceCodeVersionCreated',
  updated: 'SourceCodeVersionUpdated',
  enabled: 'SourceCodeVersionEnabled',
  disabled: 'SourceCodeVersionDisabled',
  deleted: 'SourceCodeVersionDeleted',
} as const satisfies CatalogEventTypes<'SourceCodeVersion'>;

/** The sourceCodeVersion event definitions: write-only paths and versions from the declaration. */
export const sourceCodeVersionEvents = catalogEvents(
  sourceCodeVersionEventTypes,
  sourceCodeVersionFields,
  secretPathsOf(sourceCodeVersionEntity),
  createdEventVersioning(sourceCodeVersionEntity),
);

/** Every SourceCodeVersion event, typed by its literal name. */
export type SourceCodeVersionEvent = EventOf<(typeof sourceCodeVersionEvents)[number]>;
