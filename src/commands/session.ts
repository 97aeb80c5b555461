import { AppError } from '../errors.js';
import type { SessionEvent } from '../events/identity.js';
import type { AuthMethod } from '../auth/principal.js';
import type { Aggregate } from './decider.js';

export type SessionCommand =
  | {
      readonly type: 'StartSession';
      readonly data: { readonly id: string; readonly userId: string; readonly method: AuthMethod; readonly provider: string | null; readonly expiresAt: string; readonly refreshTokenHash: string | null };
    }
  /** Rotates the refresh token; presenting an older one ends the session (token theft). */
  | { readonly type: 'RefreshSession'; readonly data: { readonly presentedHash: string; readonly nextHash: string; readonly expiresAt: string; readonly now: string } }
  | { readonly type: 'EndSession'; readonly data: { readonly reason: 'logout' | 'revoked' } };

export type SessionState =
  | { readonly status: 'absent' }
  | { readonly status: 'open' | 'ended'; readonly userId: string; readonly expiresAt: string; readonly refreshTokenHash: string | null };

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  switch (command.type) {
    case 'StartSession':
      if (state.status !== 'absent') throw new AppError('CONFLICT', `session ${command.data.id} already exists`);
      return [{ type: 'SessionStarted', data: command.data }];
    case 'RefreshSession': {
      if (state.status === 'absent') throw unauthenticated('unknown session');
      if (state.status === 'ended') throw unauthenticated('the session has ended; sign in again');
      if (Date.parse(state.expiresAt) <= Date.parse(command.data.now)) return [{ type: 'SessionEnded', data: { reason: 'expired' } }];
      if (state.refreshTokenHash === null || state.refreshTokenHash !== command.data.presentedHash) {
        return [{ type: 'SessionEnded', data: { reason: 'refresh_token_reused' } }];
      }
      return [{ type: 'SessionRefreshed', data: { refreshTokenHash: command.data.nextHash, expiresAt: command.data.expiresAt } }];
    }
    case 'EndSession':
      return state.status === 'open' ? [{ type: 'SessionEnded', data: { reason: command.data.reason } }] : [];
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted':
      return { status: 'open', userId: event.data.userId, expiresAt: event.data.expiresAt, refreshTokenHash: event.data.refreshTokenHash };
    case 'SessionRefreshed':
      return state.status === 'absent' ? state : { ...state, refreshTokenHash: event.data.refreshTokenHash, expiresAt: event.data.expiresAt };
    case 'SessionEnded':
      return state.status === 'absent' ? state : { ...state, status: 'ended' };
  }
}

export const sessionAggregate: Aggregate<SessionCommand, SessionEvent, SessionState> = {
  kind: 'session',
  streamId: (id) => `session-${id}`,
  initialState: { status: 'absent' },
  decide,
  evolve,
  uniqueKeys: () => [],
  references: () => [],
  isDeleted: () => false,
};
