import { sourceCodeVersionEntity } from '../../model/source-code-version.js';
import { declaredListSpec } from './common.js';

/** The source code versions list: what clients may filter, sort and search on, from the declaration. */
export const sourceCodeVersionListSpec = declaredListSpec(sourceCodeVersionEntity);
