import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import { personalAccessTokenAggregate, type PersonalAccessTokenCommand } from '../../src/commands/personal-access-token.js';
import type { PersonalAccessTokenEvent } from '../../src/events/personal-access-token.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(personalAccessTokenAggregate);

const ID = '11111111-1111-4111-8111-111111111111';
const USER = '22222222-2222-4222-8222-222222222222';
const fields = { id: ID, userId: USER, name: 'ci deploys', tokenHash: 'a'.repeat(64), expiresAt: '2026-03-01T00:00:00.000Z' };

const create: PersonalAccessTokenCommand = { type: 'CreatePersonalAccessToken', data: fields };
const created: PersonalAccessTokenEvent = { type: 'PersonalAccessTokenCreated', data: fields };
const revoke = (reason = 'revoked by its owner'): PersonalAccessTokenCommand => ({ type: 'RevokePersonalAccessToken', data: { reason } });
const revoked = (reason = 'revoked by its owner'): PersonalAccessTokenEvent => ({ type: 'PersonalAccessTokenRevoked', data: { reason } });

describe('when a personal access token is created', () => {
  it('records its owner, name, hash and expiry', () => {
    spec.given([]).when(create).then([created]);
  });

  it('is refused when a token with that id already exists', () => {
    spec
      .given([created])
      .when(create)
      .thenThrows({ code: 'ALREADY_EXISTS', message: `personal access token ${ID} already exists` });
  });

  it('is refused when that id was already used by a revoked token', () => {
    spec
      .given([created, revoked()])
      .when(create)
      .thenThrows({ code: 'ALREADY_EXISTS', message: `personal access token ${ID} already exists` });
  });
});

describe('when a personal access token is revoked', () => {
  it('records the revocation with its reason', () => {
    spec
      .given([created])
      .when(revoke('revoked by an administrator'))
      .then([revoked('revoked by an administrator')]);
  });

  it('changes nothing the second time (revoking is idempotent)', () => {
    spec.given([created, revoked()]).when(revoke()).then([]);
  });

  it('is refused as not found when the token does not exist', () => {
    spec.given([]).when(revoke()).thenThrows({ code: 'NOT_FOUND', message: 'personal access token not found' });
  });
});

describe('the personal access token aggregate', () => {
  it('keeps its owner after a revocation, so the route can still check who may revoke', () => {
    expect(fold(personalAccessTokenAggregate, [created, revoked()])).toEqual({
      status: 'revoked',
      id: ID,
      userId: USER,
      name: 'ci deploys',
      expiresAt: fields.expiresAt,
    });
  });

  it('holds no unique values and no references, and is never deleted', () => {
    for (const state of [
      personalAccessTokenAggregate.initialState,
      fold(personalAccessTokenAggregate, [created]),
      fold(personalAccessTokenAggregate, [created, revoked()]),
    ]) {
      expect(personalAccessTokenAggregate.uniqueKeys(state)).toEqual([]);
      expect(personalAccessTokenAggregate.references(state)).toEqual([]);
      expect(personalAccessTokenAggregate.isDeleted(state)).toBe(false);
    }
  });

  it('lives in the stream personal_access_token-<id>', () => {
    expect(personalAccessTokenAggregate.streamId(ID)).toBe(`personal_access_token-${ID}`);
  });
});
