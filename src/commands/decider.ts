import { STREAMS } from '../events/streams.js';
import type { DomainEvent } from '../events/codec.js';

/** A pure decision model: no I/O, no clock, no randomness (time and ids arrive in the command). */
export interface Decider<C, E extends DomainEvent, S> {
  readonly decide: (command: C, state: S) => readonly E[];
  readonly evolve: (state: S, event: E) => S;
  readonly initialState: S;
}

/** A value this aggregate holds that no other aggregate may hold at the same time. */
export interface UniqueKey {
  /** Normalised, e.g. `template-name:web-app`. */
  readonly key: string;
  /** The input field it comes from, for the 409's `errors`. */
  readonly field: string;
  /** What the 409 says when someone else holds it. */
  readonly message: string;
}

/** A relation this aggregate holds to another entity (checked and recorded by the handler). */
export interface Ref {
  readonly kind: string;
  readonly id: string;
  /** The input field holding it, e.g. `parentIds`. */
  readonly field: string;
  /** Position in that list, for error messages naming `parentIds[1]`. */
  readonly index?: number;
}

/** A decider plus what the generic handler needs to store it. */
export interface Aggregate<C, E extends DomainEvent, S> extends Decider<C, E, S> {
  readonly kind: string;
  /** The one place a stream id of this aggregate is built. */
  readonly streamId: (id: string) => string;
  /** The unique values the aggregate holds in this state (none once deleted). */
  readonly uniqueKeys: (state: S) => readonly UniqueKey[];
  /** The entities this state points at (none once deleted). */
  readonly references: (state: S) => readonly Ref[];
  /** Deleted states refuse to be reached while others still reference the aggregate. */
  readonly isDeleted: (state: S) => boolean;
}

/** What {@link defineAggregate} fills in when an aggregate does not say. */
type AggregateTail<S> = Pick<Aggregate<never, DomainEvent, S>, 'uniqueKeys' | 'references' | 'isDeleted'>;

/**
 * An aggregate of `kind` from its decider. Its stream ids come from the kind's stream naming; it holds
 * no unique values and points at nothing unless it says so; a state whose `status` is `deleted` is deleted.
 */
export function defineAggregate<C, E extends DomainEvent, S extends { readonly status: string }>(
  kind: keyof typeof STREAMS,
  parts: Decider<C, E, S> & Partial<AggregateTail<S>>,
): Aggregate<C, E, S> {
  return {
    kind,
    streamId: STREAMS[kind].build,
    uniqueKeys: () => [],
    references: () => [],
    isDeleted: (state) => state.status === 'deleted',
    ...parts,
  };
}

/** Folds events into state. */
export const fold = <C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[], from: S = decider.initialState): S =>
  events.reduce(decider.evolve, from);
