import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { teamEntity } from '../model/team.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a Team event carries, as stored (already validated at the edge): from its declaration. */
export const teamFields = storedFieldsSchema(teamEntity);

/** The fields a team keeps. */
export type TeamFields = z.infer<typeof teamFields>;

/** The Team event types, spelled out. */
export const teamEventTypes = {
  created: 'TeamCreated',
  updated: 'TeamUpdated',
  enabled: 'TeamEnabled',
  disabled: 'TeamDisabled',
  deleted: 'TeamDeleted',
} as const satisfies CatalogEventTypes<'Team'>;

/** The team event definitions: write-only paths and versions from the declaration. */
export const teamEvents = catalogEvents(teamEventTypes, teamFields, secretPathsOf(teamEntity), createdEventVersioning(teamEntity));

/** Every Team event, typed by its literal name. */
export type TeamEvent = EventOf<(typeof teamEvents)[number]>;
