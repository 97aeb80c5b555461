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

/** An aggregate as the handler and the registries hold any kind's: its own types stay inside its module. */
export type AnyAggregate = Aggregate<never, DomainEvent, unknown>;

/**
 * An aggregate, its command and state types forgotten. A cast because the decider's state is a
 * parameter (`decide(command, state)`): no aggregate of one kind's state is one of `unknown` state.
 */
export const anyAggregate = <C, E extends DomainEvent, S>(aggregate: Aggregate<C, E, S>): AnyAggregate =>
  aggregate as unknown as AnyAggregate;

const OWN_RULES: ReadonlyMap<string, AnyAggregate> = new Map<string, AnyAggregate>(
  [
    anyAggregate(templateAggregate),
    anyAggregate(secretAggregate),
    anyAggregate(sourceCodeAggregate),
    anyAggregate(sourceCodeVersionAggregate),
    anyAggregate(executorAggregate),
    anyAggregate(resourceAggregate),
  ].map((aggregate) => [aggregate.kind, aggregate]),
);

/** The aggregate a declaration alone gives. */
function derivedAggregate(entity: EntityDeclaration): AnyAggregate {
  const rules = declaredRules<Record<string, unknown>>(entity);
  if (!entity.lifecycle) return anyAggregate(catalogAggregate({ ...rules, events: catalogEventTypesOf(entity.name) }));
  return anyAggregate(
    lifecycleAggregate({
      ...rules,
      events: lifecycleEventTypesOf(entity.name),
      approvals: entity.lifecycle.approvals,
      deployFields: deployFieldsOf(entity),
    }),
  );
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
