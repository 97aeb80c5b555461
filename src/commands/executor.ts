import type { FieldIssue } from '../errors.js';
import { type ExecutorFields, executorEventTypes } from '../events/executor.js';
import type { Ref } from './decider.js';
import { lifecycleAggregate } from './lifecycle-entity.js';

/** Each repeat of an id in a list, named `field[index]` (the link tables hold each pair once). */
const repeats = (field: string, ids: readonly string[]): FieldIssue[] =>
  ids.flatMap((id, index) => (ids.indexOf(id) < index ? [{ field: `${field}[${index}]`, message: `${field} must not repeat ${id}` }] : []));

/** docs/contract.md §2: a tag xor a branch (at most one; neither means the default branch), and no repeated ids. */
export function checkExecutor(fields: ExecutorFields): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (fields.sourceCodeVersion !== null && fields.sourceCodeBranch !== null) {
    issues.push(
      { field: 'sourceCodeVersion', message: 'sourceCodeVersion must not be set together with sourceCodeBranch' },
      { field: 'sourceCodeBranch', message: 'sourceCodeBranch must not be set together with sourceCodeVersion' },
    );
  }
  return [...issues, ...repeats('integrationIds', fields.integrationIds), ...repeats('secretIds', fields.secretIds)];
}

/** What an executor points at: its source code, optionally a storage, and its integrations and secrets in order. */
export function executorReferences(f: ExecutorFields): Ref[] {
  return [
    { kind: 'source_code', id: f.sourceCodeId, field: 'sourceCodeId' },
    ...(f.storageId === null ? [] : [{ kind: 'storage', id: f.storageId, field: 'storageId' }]),
    ...f.integrationIds.map((id, index) => ({ kind: 'integration', id, field: 'integrationIds', index })),
    ...f.secretIds.map((id, index) => ({ kind: 'secret', id, field: 'secretIds', index })),
  ];
}

/** Executors (how modules are run): unique names, case-insensitive; provisioned through the lifecycle without approval. */
export const executorAggregate = lifecycleAggregate<ExecutorFields>({
  kind: 'executor',
  events: executorEventTypes,
  approvals: false,
  immutable: [],
  uniqueKeys: (f) => [{ key: `executor-name:${f.name.toLowerCase()}`, field: 'name', message: `an executor named "${f.name}" already exists` }],
  references: executorReferences,
  check: checkExecutor,
});
