import type { DomainEvent } from '../events/codec.js';
import { catalogEventTypesOf, lifecycleEventTypesOf } from '../events/declared.js';
import { deployFieldsOf, type EntityDeclaration } from '../model/entity.js';
import { catalogAggregate, catalogReferenceable, declaredRules, type CatalogState } from './catalog-entity.js';
import type { Aggregate } from './decider.js';
import { executorAggregate } from './executor.js';
import { lifecycleAggregate, lifecycleReferenceable, type LifecycleEntityState } from './lifecycle-entity.js';
import { resourceAggregate } from './resource.js';
import { secretAggregate } from './secret.js';
import { sourceCodeVersionAggregate } from './source-code-version.js';
import { sourceCodeAggregate } from './source-code.js';
import { templateAggregate } from './template.js';

/**
 * A declared kind's write model (docs/adding-a-kind.md): the kit its declaration names (catalog, or
 * lifecycle with its approvals), the declared rules (immutability, uniqueness, references) and the
 * kit's event names. A kind with rules of its own beyond the declaration (a template is never its own
 * parent, a resource needs a version unless abstract, …) has its aggregate in a file of its own,
 * listed in OWN_RULES; every other kind needs nothing here.
 */

// The handler folds any aggregate generically; its own types stay inside its module.
type AnyAggregate = Aggregate<never, DomainEvent, unknown>;

const OWN_RULES: ReadonlyMap<string, AnyAggregate> = new Map<string, AnyAggregate>(
  [templateAggregate, secretAggregate, sourceCodeAggregate, sourceCodeVersionAggregate, executorAggregate, resourceAggregate].map(
    (aggregate) => [aggregate.kind, aggregate as unknown as AnyAggregate],
  ),
);

/** The aggregate a declaration alone gives. */
function derivedAggregate(entity: EntityDeclaration): AnyAggregate {
  const rules = declaredRules<Record<string, unknown>>(entity);
  const aggregate = entity.lifecycle
    ? lifecycleAggregate({
        ...rules,
        events: lifecycleEventTypesOf(entity.name),
        approvals: entity.lifecycle.approvals,
        deployFields: deployFieldsOf(entity),
      })
    : catalogAggregate({ ...rules, events: catalogEventTypesOf(entity.name) });
  return aggregate as unknown as AnyAggregate;
}

const DERIVED = new Map<string, AnyAggregate>();

/** The write model of a declared kind: its own, or the one its declaration gives (made once). */
export function aggregateOf(entity: EntityDeclaration): AnyAggregate {
  const own = OWN_RULES.get(entity.kind);
  if (own) return own;
  let derived = DERIVED.get(entity.kind);
  if (!derived) DERIVED.set(entity.kind, (derived = derivedAggregate(entity)));
  return derived;
}

/** Whether an entity of a declared kind, in this state, may be newly referenced: by its kit. */
export const referenceableOf =
  (entity: EntityDeclaration) =>
  (state: unknown): 'ok' | 'missing' | 'disabled' =>
    entity.lifecycle
      ? lifecycleReferenceable(state as LifecycleEntityState<unknown>)
      : catalogReferenceable(state as CatalogState<unknown>);
