import { AppError } from '../errors.js';
import type { SsoLoginEvent } from '../events/identity.js';
import { defineAggregate, type Aggregate } from './decider.js';

/**
 * One browser sign-in through an identity provider: started by `GET /api/auth/{key}/login`, used
 * once by the callback. Kept in the event store (not in one replica's memory) so the callback may
 * land on any replica, and so "once" holds across all of them (the append expects the revision).
 */
export type SsoLoginCommand =
  | {
      readonly type: 'StartSsoLogin';
      readonly data: {
        readonly id: string;
        readonly provider: string;
        readonly stateHash: string;
        readonly nonce: string;
        readonly codeVerifier: string;
        readonly expiresAt: string;
      };
    }
  /** `stateHash` and `provider` come from the callback; `now` from the clock. */
  | { readonly type: 'CompleteSsoLogin'; readonly data: { readonly provider: string; readonly stateHash: string; readonly now: string } };

/** A single-sign-on login transaction's write model. */
export type SsoLoginState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'started' | 'completed';
      readonly provider: string;
      readonly stateHash: string;
      readonly nonce: string;
      readonly codeVerifier: string;
      readonly expiresAt: string;
    };

/** Why a callback's transaction is refused; the route maps every one to `invalid_state`. */
export type SsoLoginRefusal = 'unknown' | 'used' | 'expired' | 'other_provider' | 'state_mismatch';

/** A refused transaction: the callback does not belong to a sign-in this browser started. */
export class SsoLoginRefused extends AppError {
  readonly refusal: SsoLoginRefusal;
  constructor(refusal: SsoLoginRefusal) {
    super('UNAUTHENTICATED', `sign-in transaction refused: ${refusal.replace('_', ' ')}`);
    this.refusal = refusal;
  }
}

function decide(command: SsoLoginCommand, state: SsoLoginState): SsoLoginEvent[] {
  switch (command.type) {
    case 'StartSsoLogin':
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `sign-in transaction ${command.data.id} already exists`);
      return [{ type: 'SsoLoginStarted', data: command.data }];
    case 'CompleteSsoLogin': {
      if (state.status === 'absent') throw new SsoLoginRefused('unknown');
      if (state.status === 'completed') throw new SsoLoginRefused('used');
      if (state.stateHash !== command.data.stateHash) throw new SsoLoginRefused('state_mismatch');
      if (state.provider !== command.data.provider) throw new SsoLoginRefused('other_provider');
      if (Date.parse(state.expiresAt) <= Date.parse(command.data.now)) throw new SsoLoginRefused('expired');
      return [{ type: 'SsoLoginCompleted', data: {} }];
    }
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: SsoLoginState, event: SsoLoginEvent): SsoLoginState {
  switch (event.type) {
    case 'SsoLoginStarted': {
      const { provider, stateHash, nonce, codeVerifier, expiresAt } = event.data;
      return { status: 'started', provider, stateHash, nonce, codeVerifier, expiresAt };
    }
    case 'SsoLoginCompleted':
      return state.status === 'absent' ? state : { ...state, status: 'completed' };
  }
}

/** The SSO login aggregate: a started login may be completed once. */
export const ssoLoginAggregate: Aggregate<SsoLoginCommand, SsoLoginEvent, SsoLoginState> = defineAggregate('sso_login', {
  initialState: { status: 'absent' },
  decide,
  evolve,
});
