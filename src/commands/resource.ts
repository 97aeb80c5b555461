import type { FieldIssue } from '../errors.js';
import { type ResourceFields, resourceEventTypes } from '../events/resource.js';
import type { Ref } from './decider.js';
import { lifecycleAggregate, type LifecycleCommand, type LifecycleEntityState } from './lifecycle-entity.js';

/** A list relation as references, each naming its element (`parentIds[1]`) in a 422. */
const listRefs = (kind: string, ids: readonly string[], field: string): Ref[] => ids.map((id, index) => ({ kind, id, field, index }));

/** Rules the edge schema cannot see: they need the template's `abstract` or the resource's own id. */
function check(fields: ResourceFields, id: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!fields.abstract && fields.sourceCodeVersionId === null) {
    issues.push({ field: 'sourceCodeVersionId', message: 'sourceCodeVersionId is required unless the template is abstract' });
  }
  if (fields.parentIds.includes(id)) issues.push({ field: 'parentIds', message: 'a resource cannot be its own parent' });
  return issues;
}

/** What a resource can be asked to do. */
export type ResourceCommand = LifecycleCommand<ResourceFields>;
/** A resource's write model. */
export type ResourceState = LifecycleEntityState<ResourceFields>;

/** Resources: names unique per template, provisioned through the lifecycle with approval (docs/contract.md §2). */
export const resourceAggregate = lifecycleAggregate<ResourceFields>({
  kind: 'resource',
  events: resourceEventTypes,
  approvals: true,
  immutable: ['templateId', 'abstract', 'creatorId'],
  uniqueKeys: (f) => [
    { key: `resource-name:${f.templateId}:${f.name.toLowerCase()}`, field: 'name', message: `a resource named "${f.name}" already exists for this template` },
  ],
  references: (f) => [
    { kind: 'template', id: f.templateId, field: 'templateId' },
    ...(f.sourceCodeVersionId === null ? [] : [{ kind: 'source_code_version', id: f.sourceCodeVersionId, field: 'sourceCodeVersionId' }]),
    ...(f.storageId === null ? [] : [{ kind: 'storage', id: f.storageId, field: 'storageId' }]),
    ...(f.workspaceId === null ? [] : [{ kind: 'workspace', id: f.workspaceId, field: 'workspaceId' }]),
    ...listRefs('integration', f.integrationIds, 'integrationIds'),
    ...listRefs('secret', f.secretIds, 'secretIds'),
    ...listRefs('resource', f.parentIds, 'parentIds'),
  ],
  check,
});
