import { AppError, type FieldIssue } from '../errors.js';
import type { LifecycleAction, LifecyclePosition } from '../model/lifecycle.js';

/**
 * Parent/child rules of lifecycle entities (resources): a resource is not created or recreated under
 * a parent that is destroyed or being destroyed, and a parent is not destroyed while a child lives.
 * Pure: the facts about parents and children arrive in the command, loaded from their streams by the
 * caller, whose revisions ride in the same append (so a concurrent change makes it decide again).
 */

/** What a decision needs to know of a related entity. */
export interface RelativeFact extends LifecyclePosition {
  readonly id: string;
  readonly name: string;
}

/** The parents the entity names and the children that name it, as their streams show them now. */
export interface Lineage {
  readonly parents: readonly RelativeFact[];
  readonly children: readonly RelativeFact[];
}

const describe = (relatives: readonly RelativeFact[]): string => relatives.map((r) => `"${r.name}" (${r.state}/${r.status})`).join(', ');
const goingAway = (relative: RelativeFact): boolean => relative.state === 'destroy' || relative.state === 'destroyed';

/** Refuses a create whose `parentIds` name a parent destroyed or being destroyed (422 naming each). */
export function checkCreateLineage(parentIds: readonly string[], lineage: Lineage): void {
  const issues: FieldIssue[] = [];
  parentIds.forEach((id, index) => {
    const parent = lineage.parents.find((p) => p.id === id);
    if (parent && goingAway(parent)) {
      issues.push({
        field: `parentIds[${index}]`,
        message: `parent "${parent.name}" is ${parent.state === 'destroyed' ? 'destroyed' : 'being destroyed'}`,
      });
    }
  });
  if (issues.length > 0) throw new AppError('UNPROCESSABLE', issues.map((i) => i.message).join('; '), { errors: issues });
}

/** Refuses a recreate under a parent going away, and a destroy while a child is not destroyed (409). */
export function checkActionLineage(action: LifecycleAction, lineage: Lineage): void {
  if (action === 'recreate') {
    const gone = lineage.parents.filter(goingAway);
    if (gone.length > 0) {
      throw new AppError('LINEAGE_CONFLICT', `cannot recreate a resource under a destroyed or destroying parent: ${describe(gone)}`, {
        details: { parents: gone },
      });
    }
  }
  if (action === 'destroy') {
    const living = lineage.children.filter((c) => c.state !== 'destroyed');
    if (living.length > 0) {
      throw new AppError('LINEAGE_CONFLICT', `cannot destroy a resource while its children are not destroyed: ${describe(living)}`, {
        details: { children: living },
      });
    }
  }
}
