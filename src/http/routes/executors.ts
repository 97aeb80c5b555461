import type { FastifyInstance } from 'fastify';
import { executorAggregate } from '../../commands/executor.js';
import { entityInput } from '../../edge/entity-input.js';
import { executorEntity } from '../../model/executor.js';
import { executorListSpec } from '../../read/list-specs/executors.js';
import type { Services } from '../../services.js';
import { declaredSurface } from './catalog.js';
import { lifecycleRoutes } from './lifecycle.js';

/** REST for executors (docs/contract.md §2–§3): `/api/executors`, lifecycle actions without approvals. */
export function executorsRoutes(app: FastifyInstance, services: Services): void {
  lifecycleRoutes(app, services, { ...declaredSurface(executorEntity, executorAggregate, executorListSpec), ...entityInput(executorEntity) });
}
