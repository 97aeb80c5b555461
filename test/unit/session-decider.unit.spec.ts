import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import { sessionAggregate, type SessionCommand } from '../../src/commands/session.js';
import type { SessionEvent } from '../../src/events/identity.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(sessionAggregate);

const ID = '22222222-2222-4222-8222-222222222222';
const USER = '11111111-1111-4111-8111-111111111111';
const EXPIRES = '2024-01-08T00:00:00.000Z';
const BEFORE_EXPIRY = '2024-01-02T00:00:00.000Z';
const LATER_EXPIRY = '2024-01-09T00:00:00.000Z';

const startData = { id: ID, userId: USER, method: 'guest', provider: 'guest', expiresAt: EXPIRES, refreshTokenHash: 'hash-1' } as const;
const start: SessionCommand = { type: 'StartSession', data: startData };
const started: SessionEvent = { type: 'SessionStarted', data: startData };
const serviceSessionStarted: SessionEvent = {
  type: 'SessionStarted',
  data: { ...startData, method: 'service_account', provider: 'svc_service_account', refreshTokenHash: null },
};

const refresh = (presentedHash: string, nextHash: string, now = BEFORE_EXPIRY, expiresAt = LATER_EXPIRY): SessionCommand => ({
  type: 'RefreshSession',
  data: { presentedHash, nextHash, expiresAt, now },
});
const refreshed = (refreshTokenHash: string, expiresAt = LATER_EXPIRY): SessionEvent => ({
  type: 'SessionRefreshed',
  data: { refreshTokenHash, expiresAt },
});
const ended = (reason: Extract<SessionEvent, { type: 'SessionEnded' }>['data']['reason']): SessionEvent => ({
  type: 'SessionEnded',
  data: { reason },
});
const end = (reason: 'logout' | 'revoked'): SessionCommand => ({ type: 'EndSession', data: { reason } });

describe('when a session is started', () => {
  it('records who, how, until when and the hash of its refresh token', () => {
    spec.given([]).when(start).then([started]);
  });

  it('records a service-account session, which has no refresh token', () => {
    spec.given([]).when({ type: 'StartSession', data: serviceSessionStarted.data }).then([serviceSessionStarted]);
  });

  it('is refused when a session with that id already exists', () => {
    spec
      .given([started])
      .when(start)
      .thenThrows({ code: 'ALREADY_EXISTS', message: `session ${ID} already exists` });
  });
});

describe('when a session is refreshed', () => {
  it('rotates the refresh token and moves the expiry', () => {
    spec
      .given([started])
      .when(refresh('hash-1', 'hash-2'))
      .then([refreshed('hash-2')]);
  });

  it('accepts the rotated token next time', () => {
    spec
      .given([started, refreshed('hash-2')])
      .when(refresh('hash-2', 'hash-3'))
      .then([refreshed('hash-3')]);
  });

  it('ends the session when an older refresh token is presented again (token theft)', () => {
    spec
      .given([started, refreshed('hash-2')])
      .when(refresh('hash-1', 'hash-3'))
      .then([ended('refresh_token_reused')]);
  });

  it('refuses a refresh token it never issued, and leaves the session alone (a guessed id proves nothing)', () => {
    spec.given([started]).when(refresh('hash-forged', 'hash-2')).thenThrows({ code: 'UNAUTHENTICATED', message: 'invalid refresh token' });
  });

  it('refuses to refresh a session that has no refresh token (service accounts), without ending it', () => {
    const machine: SessionEvent = {
      ...started,
      data: { ...(started.data as Record<string, unknown>), refreshTokenHash: null },
    } as SessionEvent;
    spec
      .given([machine])
      .when(refresh('hash-1', 'hash-2'))
      .thenThrows({ code: 'UNAUTHENTICATED', message: 'this session cannot be refreshed' });
  });

  it('ends at logout through the cookie only when the secret of the cookie matches', () => {
    spec
      .given([started])
      .when({ type: 'EndSession', data: { reason: 'logout', presentedHash: 'hash-forged' } })
      .then([]);
    spec
      .given([started])
      .when({ type: 'EndSession', data: { reason: 'logout', presentedHash: 'hash-1' } })
      .then([ended('logout')]);
  });

  it('ends the session as expired from the instant it expires, even with the right token', () => {
    spec
      .given([started])
      .when(refresh('hash-1', 'hash-2', EXPIRES))
      .then([ended('expired')]);
    spec
      .given([started])
      .when(refresh('hash-1', 'hash-2', '2024-01-08T00:00:00.001Z'))
      .then([ended('expired')]);
  });

  it('measures expiry from the last refresh, not from the start', () => {
    spec
      .given([started, refreshed('hash-2')])
      .when(refresh('hash-2', 'hash-3', '2024-01-08T12:00:00.000Z', '2024-01-15T12:00:00.000Z'))
      .then([refreshed('hash-3', '2024-01-15T12:00:00.000Z')]);
  });

  it('refuses an ended session: sign in again', () => {
    const message = 'the session has ended; sign in again';
    for (const reason of ['logout', 'revoked', 'refresh_token_reused', 'expired'] as const) {
      spec
        .given([started, ended(reason)])
        .when(refresh('hash-1', 'hash-2'))
        .thenThrows({ code: 'UNAUTHENTICATED', message });
    }
  });

  it('refuses a session that does not exist', () => {
    spec.given([]).when(refresh('hash-1', 'hash-2')).thenThrows({ code: 'UNAUTHENTICATED', message: 'unknown session' });
  });
});

describe('when a session is ended', () => {
  it('records the logout of an open session', () => {
    spec
      .given([started])
      .when(end('logout'))
      .then([ended('logout')]);
  });

  it('records a revocation with its reason', () => {
    spec
      .given([started, refreshed('hash-2')])
      .when(end('revoked'))
      .then([ended('revoked')]);
  });

  it('changes nothing when the session has ended already (idempotent)', () => {
    spec
      .given([started, ended('logout')])
      .when(end('logout'))
      .then([]);
    spec
      .given([started, ended('refresh_token_reused')])
      .when(end('revoked'))
      .then([]);
  });

  it('changes nothing for a session that does not exist', () => {
    spec.given([]).when(end('logout')).then([]);
  });
});

describe('the session aggregate', () => {
  it('folds its events into the owner, current and rotated-away refresh hashes, expiry and status', () => {
    expect(fold(sessionAggregate, [started, refreshed('hash-2')])).toEqual({
      status: 'open',
      userId: USER,
      provider: 'guest',
      expiresAt: LATER_EXPIRY,
      refreshTokenHash: 'hash-2',
      upstreamRefreshToken: null,
      pastRefreshHashes: ['hash-1'],
    });
    expect(fold(sessionAggregate, [started, refreshed('hash-2'), ended('logout')])).toEqual({
      status: 'ended',
      userId: USER,
      provider: 'guest',
      expiresAt: LATER_EXPIRY,
      refreshTokenHash: 'hash-2',
      upstreamRefreshToken: null,
      pastRefreshHashes: ['hash-1'],
    });
  });

  it('ignores refreshes and ends of a session it never saw start', () => {
    expect(fold(sessionAggregate, [refreshed('hash-2'), ended('logout')])).toEqual({ status: 'absent' });
  });

  it('holds no unique values, and its stream id is session-<id>', () => {
    expect(sessionAggregate.uniqueKeys(fold(sessionAggregate, [started]))).toEqual([]);
    expect(sessionAggregate.streamId(ID)).toBe(`session-${ID}`);
  });
});
