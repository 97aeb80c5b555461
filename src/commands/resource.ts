import type { FieldIssue } from '../errors.js';
import { type ResourceFields, resourceEventTypes } from '../events/resource.js';
import { deployFieldsOf } from '../model/entity.js';
import { resourceEntity } from '../model/resource.js';
import { declaredRules } from './catalog-entity.js';
import { lifecycleAggregate, type LifecycleCommand, type LifecycleEntityState } from './lifecycle-entity.js';

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

/**
 * Resources: the declared rules (names unique per template, references) plus their own; provisioned with approval (docs/contract.md §2).
 */
export const resourceAggregate = lifecycleAggregate<ResourceFields>({
  ...declaredRules(resourceEntity, check),
  events: resourceEventTypes,
  approvals: resourceEntity.lifecycle.approvals,
  deployFields: deployFieldsOf(resourceEntity),
});
