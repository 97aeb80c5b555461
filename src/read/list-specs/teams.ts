import { teamEntity } from '../../model/team.js';
import { declaredListSpec } from './common.js';

/** The teams list: what clients may filter, sort and search on, from the declaration. */
export const teamListSpec = declaredListSpec(teamEntity);
