import { secretEntity } from '../../model/secret.js';
import { declaredListSpec } from './common.js';

/** The secrets list: what clients may filter, sort and search on, from the declaration. */
export const secretListSpec = declaredListSpec(secretEntity);
