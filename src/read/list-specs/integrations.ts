import { integrationEntity } from '../../model/integration.js';
import { declaredListSpec } from './common.js';

/** The integrations list: what clients may filter, sort and search on, from the declaration. */
export const integrationListSpec = declaredListSpec(integrationEntity);
