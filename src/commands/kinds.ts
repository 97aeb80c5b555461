import type { DomainEvent } from '../events/codec.js';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import type { Aggregate } from './decider.js';
import { aggregateOf, anyAggregate, referenceableOf } from './declared.js';
import { userAggregate, type UserState } from './user.js';

/** Whether an entity in this state may be newly referenced. */
export type Referenceable = 'ok' | 'missing' | 'disabled';

/** How a reference to one kind of entity is checked. */
export interface ReferenceTarget {
  // The handler folds any aggregate generically; its own types stay inside its module.
  readonly aggregate: Aggregate<never, DomainEvent, unknown>;
  readonly referenceable: (state: unknown) => Referenceable;
}

/** Every kind of entity a relation may point at: a reference to any other kind is always "does not exist". */
export const referenceTargets: ReadonlyMap<string, ReferenceTarget> = new Map<string, ReferenceTarget>([
  // Every declared kind, by its kit (./declared.ts).
  ...DECLARED_ENTITIES.map((entity): [string, ReferenceTarget] => [
    entity.kind,
    { aggregate: aggregateOf(entity), referenceable: referenceableOf(entity) },
  ]),
  // Teams list users as members and leads: a deactivated user cannot be newly listed.
  [
    'user',
    {
      aggregate: anyAggregate(userAggregate),
      referenceable: (state) => {
        const user = state as UserState;
        return user.status !== 'active' ? 'missing' : user.deactivated ? 'disabled' : 'ok';
      },
    },
  ],
]);
