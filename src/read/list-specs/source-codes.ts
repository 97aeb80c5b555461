import { sourceCodeEntity } from '../../model/source-code.js';
import { declaredListSpec } from './common.js';

/** The source codes list: what clients may filter, sort and search on, from the declaration. */
export const sourceCodeListSpec = declaredListSpec(sourceCodeEntity);
