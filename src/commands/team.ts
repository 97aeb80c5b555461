import { teamEventTypes, type TeamFields } from '../events/team.js';
import { teamEntity } from '../model/team.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** Teams: a name is unique (case-insensitive); members and leads must be existing users; a team that owns something cannot be deleted. */
export const teamAggregate = catalogAggregate<TeamFields>({ ...declaredRules(teamEntity), events: teamEventTypes });
