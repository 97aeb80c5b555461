import type { DomainEvent } from '../events/codec.js';
import type { Aggregate } from './decider.js';
import { catalogReferenceable, type CatalogState } from './catalog-entity.js';
import { integrationAggregate } from './integration.js';
import { secretAggregate } from './secret.js';
import { sourceCodeVersionAggregate } from './source-code-version.js';
import { sourceCodeAggregate } from './source-code.js';
import { lifecycleReferenceable, type LifecycleEntityState } from './lifecycle-entity.js';
import { executorAggregate } from './executor.js';
import { resourceAggregate } from './resource.js';
import { storageAggregate } from './storage.js';
import { workspaceAggregate } from './workspace.js';
import { templateAggregate } from './template.js';
import { teamAggregate } from './team.js';
import { userAggregate, type UserState } from './user.js';

/** Whether an entity in this state may be newly referenced. */
export type Referenceable = 'ok' | 'missing' | 'disabled';

/** How a reference to one kind of entity is checked. */
export interface ReferenceTarget {
  // The handler folds any aggregate generically; its own types stay inside its module.
  readonly aggregate: Aggregate<never, DomainEvent, unknown>;
  readonly referenceable: (state: unknown) => Referenceable;
}

/**
 * Every kind of entity a relation may point at. Kinds not listed here (executors until the entities
 * issue) have no entity yet, so a reference to one is always "does not exist".
 */
export const referenceTargets: ReadonlyMap<string, ReferenceTarget> = new Map<string, ReferenceTarget>([
  ...[
    templateAggregate,
    integrationAggregate,
    secretAggregate,
    workspaceAggregate,
    sourceCodeAggregate,
    sourceCodeVersionAggregate,
    teamAggregate,
  ].map((aggregate): [string, ReferenceTarget] => [
    aggregate.kind,
    {
      aggregate: aggregate as unknown as Aggregate<never, DomainEvent, unknown>,
      referenceable: (state) => catalogReferenceable(state as CatalogState<unknown>),
    },
  ]),
  ...[storageAggregate, executorAggregate, resourceAggregate].map((aggregate): [string, ReferenceTarget] => [
    aggregate.kind,
    {
      aggregate: aggregate as unknown as Aggregate<never, DomainEvent, unknown>,
      referenceable: (state) => lifecycleReferenceable(state as LifecycleEntityState<unknown>),
    },
  ]),
  // Teams list users as members and leads: a deactivated user cannot be newly listed.
  [
    'user',
    {
      aggregate: userAggregate as unknown as Aggregate<never, DomainEvent, unknown>,
      referenceable: (state) => {
        const user = state as UserState;
        return user.status !== 'active' ? 'missing' : user.deactivated ? 'disabled' : 'ok';
      },
    },
  ],
]);
