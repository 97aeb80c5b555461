import { expect } from 'vitest';
import type { Decider } from '../../src/commands/decider.js';
import type { DomainEvent } from '../../src/events/codec.js';
import { AppError, type ErrorCode, type FieldIssue } from '../../src/errors.js';

/** What a refusal must look like: the code and exact message, and (when given) exactly these field issues. */
export interface ExpectedRefusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly errors?: readonly FieldIssue[];
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface WhenClause<E> {
  /** The decision is exactly these events (`[]`: the command changes nothing). */
  then(expected: readonly E[]): void;
  /** The decision is refused with an AppError of this code and message. */
  thenThrows(expected: ExpectedRefusal): void;
}

export interface GivenClause<C, E> {
  when(command: C): WhenClause<E>;
}

/**
 * Given/when/then for any decider: `given` events are folded with the decider's own `evolve` from
 * `initialState`, `when` decides on that state, `then` compares the emitted events.
 *
 * @example deciderSpec(templateAggregate).given([created]).when({ type: 'DisableTemplate' }).then([disabled])
 */
export function deciderSpec<C, E extends DomainEvent, S>(decider: Decider<C, E, S>): { given(events: readonly E[]): GivenClause<C, E> } {
  return {
    given: (events) => ({
      when: (command) => {
        const decide = (): readonly E[] => decider.decide(command, events.reduce(decider.evolve, decider.initialState));
        return {
          then: (expected) => expect(decide()).toEqual(expected),
          thenThrows: (expected) => {
            let thrown: unknown;
            try {
              decide();
            } catch (error) {
              thrown = error;
            }
            expect(thrown, 'the command was expected to be refused').toBeInstanceOf(AppError);
            const error = thrown as AppError;
            expect({ code: error.code, message: error.message }).toEqual({ code: expected.code, message: expected.message });
            if (expected.errors) expect(error.errors).toEqual(expected.errors);
            if (expected.details) expect(error.details).toEqual(expected.details);
          },
        };
      },
    }),
  };
}
