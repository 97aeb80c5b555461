import { executorEventTypes, executorFields } from '../events/executor.js';
import { executorEntity } from '../model/executor.js';
import { declaredProjection } from './catalog-projection.js';

/** The executors read model: columns, link tables and masking from the declaration. */
export const executorsProjection = declaredProjection(executorEntity, executorEventTypes, executorFields);
