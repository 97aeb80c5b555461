import { teamEventTypes, teamFields } from '../events/team.js';
import { teamEntity } from '../model/team.js';
import { declaredProjection } from './catalog-projection.js';

/** The teams read model: columns, link tables and masking from the declaration. */
export const teamsProjection = declaredProjection(teamEntity, teamEventTypes, teamFields);
