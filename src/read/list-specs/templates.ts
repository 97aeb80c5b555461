import { templateEntity } from '../../model/template.js';
import { declaredListSpec } from './common.js';

/** The templates list: what clients may filter, sort and search on, from the declaration. */
export const templateListSpec = declaredListSpec(templateEntity);
