import { AppError } from '../errors.js';
import type { SessionEvent } from '../events/identity.js';
import type { AuthMethod } from '../model/principal.js';
import { defineAggregate, type Aggregate } from './decider.js';

/** What a session can be asked to do. */
export type SessionCommand =
  | {
      readonly type: 'StartSession';
      readonly data: {
        readonly id: string;
        readonly userId: string;
        readonly method: AuthMethod;
        readonly provider: string | null;
        readonly expiresAt: string;
        readonly refreshTokenHash: string | null;
        /** The identity provider's refresh token, re-checked on each refresh (Google sign-ins). */
        readonly upstreamRefreshToken?: string | null;
      };
    }
  /** Rotates the refresh token; presenting an older one ends the session (token theft). */
  | {
      readonly type: 'RefreshSession';
      readonly data: { readonly presentedHash: string; readonly nextHash: string; readonly expiresAt: string; readonly now: string };
    }
  /**
   * `presentedHash`: when ending through the refresh cookie, the cookie's secret must match — a
   * session id alone is no proof (it is visible in tokens and the audit log).
   */
  | {
      readonly type: 'EndSession';
      readonly data: {
        readonly reason: 'logout' | 'revoked' | 'identity_provider_refused' | 'provider_disabled';
        readonly presentedHash?: string;
      };
    };

/** A session's write model. */
export type SessionState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'open' | 'ended';
      readonly userId: string;
      /** Key of the provider the session was started through, if any. */
      readonly provider: string | null;
      readonly expiresAt: string;
      readonly refreshTokenHash: string | null;
      readonly upstreamRefreshToken: string | null;
      /** Refresh tokens already rotated away: presenting one again means it was stolen. */
      readonly pastRefreshHashes: readonly string[];
    };

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  switch (command.type) {
    case 'StartSession':
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `session ${command.data.id} already exists`);
      return [{ type: 'SessionStarted', data: command.data }];
    case 'RefreshSession': {
      if (state.status === 'absent') throw unauthenticated('unknown session');
      if (state.status === 'ended') throw unauthenticated('the session has ended; sign in again');
      if (Date.parse(state.expiresAt) <= Date.parse(command.data.now)) return [{ type: 'SessionEnded', data: { reason: 'expired' } }];
      if (state.refreshTokenHash === null) throw unauthenticated('this session cannot be refreshed');
      if (state.pastRefreshHashes.includes(command.data.presentedHash))
        return [{ type: 'SessionEnded', data: { reason: 'refresh_token_reused' } }];
      // An unknown secret proves nothing about the session: refuse it, leave the session alone.
      if (state.refreshTokenHash !== command.data.presentedHash) throw unauthenticated('invalid refresh token');
      return [{ type: 'SessionRefreshed', data: { refreshTokenHash: command.data.nextHash, expiresAt: command.data.expiresAt } }];
    }
    case 'EndSession': {
      if (state.status !== 'open') return [];
      const { presentedHash, reason } = command.data;
      if (presentedHash !== undefined && (state.refreshTokenHash === null || presentedHash !== state.refreshTokenHash)) return [];
      return [{ type: 'SessionEnded', data: { reason } }];
    }
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted':
      return {
        status: 'open',
        userId: event.data.userId,
        provider: event.data.provider,
        expiresAt: event.data.expiresAt,
        refreshTokenHash: event.data.refreshTokenHash,
        upstreamRefreshToken: event.data.upstreamRefreshToken ?? null,
        pastRefreshHashes: [],
      };
    case 'SessionRefreshed':
      if (state.status === 'absent') return state;
      return {
        ...state,
        refreshTokenHash: event.data.refreshTokenHash,
        expiresAt: event.data.expiresAt,
        pastRefreshHashes: state.refreshTokenHash === null ? state.pastRefreshHashes : [...state.pastRefreshHashes, state.refreshTokenHash],
      };
    case 'SessionEnded':
      return state.status === 'absent' ? state : { ...state, status: 'ended' };
  }
}

/** The session aggregate: started, refreshed (rotating its refresh token), ended. */
export const sessionAggregate: Aggregate<SessionCommand, SessionEvent, SessionState> = defineAggregate('session', {
  initialState: { status: 'absent' },
  decide,
  evolve,
});
