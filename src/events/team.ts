import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { teamEntity } from '../model/team.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a Team event carries, as stored (already validated at the edge): from its declaration. */
export const teamFields = storedFieldsSchema(teamEntity);

/** The fields a team keeps. */
export type TeamFields = z.infer<typeof teamFields>;

/** The Team event types (the codec's definitions are the declaration's: ./declared.ts). */
export const teamEventTypes = catalogEventTypesOf('Team');
