import { executorEntity } from '../../model/executor.js';
import { declaredListSpec } from './common.js';

/** The executors list: what clients may filter, sort and search on, from the declaration. */
export const executorListSpec = declaredListSpec(executorEntity);
