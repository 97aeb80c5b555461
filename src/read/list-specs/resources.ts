import { resourceEntity } from '../../model/resource.js';
import { declaredListSpec } from './common.js';

/** The resources list: what clients may filter, sort and search on, from the declaration. */
export const resourceListSpec = declaredListSpec(resourceEntity);
