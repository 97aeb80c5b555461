import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { workspaceEntity } from '../model/workspace.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a Workspace event carries, as stored (already validated at the edge): from its declaration. */
export const workspaceFields = storedFieldsSchema(workspaceEntity);

/** The fields a workspace keeps. */
export type WorkspaceFields = z.infer<typeof workspaceFields>;

/** The Workspace event types, spelled out. */
export const workspaceEventTypes = {
  created: 'WorkspaceCreated',
  updated: 'WorkspaceUpdated',
  enabled: 'WorkspaceEnabled',
  disabled: 'WorkspaceDisabled',
  deleted: 'WorkspaceDeleted',
} as const satisfies CatalogEventTypes<'Workspace'>;

/** The workspace event definitions: write-only paths and versions from the declaration. */
export const workspaceEvents = catalogEvents(
  workspaceEventTypes,
  workspaceFields,
  secretPathsOf(workspaceEntity),
  createdEventVersioning(workspaceEntity),
);

/** Every Workspace event, typed by its literal name. */
export type WorkspaceEvent = EventOf<(typeof workspaceEvents)[number]>;
