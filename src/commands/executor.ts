import type { FieldIssue } from '../errors.js';
import { executorEventTypes, type ExecutorFields } from '../events/executor.js';
import { executorEntity } from '../model/executor.js';
import { declaredRules } from './catalog-entity.js';
import { lifecycleAggregate } from './lifecycle-entity.js';

/** docs/contract.md §2: a tag xor a branch (at most one; neither means the default branch). */
export function checkExecutor(fields: ExecutorFields): FieldIssue[] {
  if (fields.sourceCodeVersion === null || fields.sourceCodeBranch === null) return [];
  return [
    { field: 'sourceCodeVersion', message: 'sourceCodeVersion must not be set together with sourceCodeBranch' },
    { field: 'sourceCodeBranch', message: 'sourceCodeBranch must not be set together with sourceCodeVersion' },
  ];
}

/** Executors (how modules are run): the declared rules plus tag xor branch; provisioned without approval. */
export const executorAggregate = lifecycleAggregate<ExecutorFields>({
  ...declaredRules(executorEntity, checkExecutor),
  events: executorEventTypes,
  approvals: executorEntity.lifecycle.approvals,
});
