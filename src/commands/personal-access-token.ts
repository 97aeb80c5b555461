import { AppError, notFound } from '../errors.js';
import type { PersonalAccessTokenEvent } from '../events/personal-access-token.js';
import { defineAggregate, type Aggregate } from './decider.js';

/** What a personal access token can be asked to do. */
export type PersonalAccessTokenCommand =
  | {
      readonly type: 'CreatePersonalAccessToken';
      /** The hash and expiry are computed at the edge (randomness and time stay out of the decider). */
      readonly data: {
        readonly id: string;
        readonly userId: string;
        readonly name: string;
        readonly tokenHash: string;
        readonly expiresAt: string;
      };
    }
  | { readonly type: 'RevokePersonalAccessToken'; readonly data: { readonly reason: string } };

/** A personal access token's write model. */
export type PersonalAccessTokenState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'revoked';
      readonly id: string;
      readonly userId: string;
      readonly name: string;
      readonly expiresAt: string;
    };

function decide(command: PersonalAccessTokenCommand, state: PersonalAccessTokenState): PersonalAccessTokenEvent[] {
  switch (command.type) {
    case 'CreatePersonalAccessToken':
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `personal access token ${command.data.id} already exists`);
      return [{ type: 'PersonalAccessTokenCreated', data: command.data }];
    case 'RevokePersonalAccessToken':
      // Who may revoke is the route's permission check; here only whether there is something to revoke.
      if (state.status === 'absent') throw notFound('personal access token not found');
      return state.status === 'revoked' ? [] : [{ type: 'PersonalAccessTokenRevoked', data: command.data }];
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: PersonalAccessTokenState, event: PersonalAccessTokenEvent): PersonalAccessTokenState {
  switch (event.type) {
    case 'PersonalAccessTokenCreated': {
      const { id, userId, name, expiresAt } = event.data;
      return { status: 'active', id, userId, name, expiresAt };
    }
    case 'PersonalAccessTokenRevoked':
      return state.status === 'absent' ? state : { ...state, status: 'revoked' };
    default: {
      const unknown: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

/** A personal access token: created once, revoked at most once, never deleted (its row stays for the list). */
export const personalAccessTokenAggregate: Aggregate<PersonalAccessTokenCommand, PersonalAccessTokenEvent, PersonalAccessTokenState> =
  defineAggregate('personal_access_token', {
    initialState: { status: 'absent' },
    decide,
    evolve,
  });
