import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { samePrincipal, type Recalled } from '../../src/auth/authenticator.js';
import type { Principal } from '../../src/model/principal.js';
import { AppError } from '../../src/errors.js';
import { guarded, noteGuard, settle, speculate, type Speculation } from '../../src/graphql/speculation.js';

const principal: Principal = {
  userId: '6f1c1a52-0b5e-4a43-9d0e-0d3b8d7b2f11',
  kind: 'service_account',
  identifier: 'ci-bot',
  roles: ['default'],
  permissions: ['template:read'],
  method: 'service_account',
  sessionId: '0b8f4a2e-0d43-4c39-a0b6-5f0f2c1d9e77',
};
const recalled: Recalled = { principal, guard: { sessionId: principal.sessionId ?? '', fingerprint: 'c4ca4238a0b923820dcc509a6f75849b' } };
const pending = (): Speculation => speculate('Bearer t', recalled);
const statement = CompiledQuery.raw('select "templates"."name" as "name" from "templates" where "templates"."id" = $1', ['x']);

describe('guarded: the session check rides on a root statement while the caller is unconfirmed', () => {
  it('adds the check as the first column, its two parameters numbered after the statement’s own', () => {
    const sent = guarded(statement, pending());
    expect(sent.sql).toMatch(
      /^select coalesce\(\(select guard_s\.xmin::text \|\| '\.' \|\| guard_u\.xmin::text from sessions as guard_s inner join users as guard_u on guard_u\.id = guard_s\.user_id where guard_s\.id = \$2\) = \$3, false\) as "__session_unchanged", "templates"\."name" as "name" from "templates" where "templates"\."id" = \$1$/,
    );
    expect(sent.parameters).toEqual(['x', recalled.guard.sessionId, recalled.guard.fingerprint]);
  });

  it('sends the statement as it is for a confirmed, doubted or absent speculation, and for anything but a plain select', () => {
    for (const state of ['confirmed', 'doubted'] as const) expect(guarded(statement, { ...pending(), state })).toBe(statement);
    expect(guarded(statement, undefined)).toBe(statement);
    for (const sql of ['with t as (select 1) select * from t', 'select distinct "name" from "templates"']) {
      const other = CompiledQuery.raw(sql, []);
      expect(guarded(other, pending())).toBe(other);
    }
  });
});

describe('noteGuard: what a guarded statement’s rows say of the session', () => {
  it('confirms on true, doubts on false, and learns nothing from no rows or an unguarded statement', () => {
    const confirmed = pending();
    noteGuard([{ __session_unchanged: true, name: 'a' }], confirmed);
    expect(confirmed.state).toBe('confirmed');
    const doubted = pending();
    noteGuard([{ __session_unchanged: false, name: 'a' }], doubted);
    expect(doubted.state).toBe('doubted');
    const unknown = pending();
    noteGuard([], unknown);
    noteGuard([{ name: 'a' }], unknown);
    expect(unknown.state).toBe('pending');
  });

  it('keeps the first verdict: a later statement of the same request does not change it', () => {
    const speculation = pending();
    noteGuard([{ __session_unchanged: true }], speculation);
    noteGuard([{ __session_unchanged: false }], speculation);
    expect(speculation.state).toBe('confirmed');
  });
});

describe('settle: before answering', () => {
  const never = (): Promise<Principal> => Promise.reject(new Error('must not read the session'));

  it('answers a confirmed caller without reading the session', async () => {
    expect(await settle({ ...pending(), state: 'confirmed' }, never)).toEqual({ outcome: 'answer' });
  });

  it('reads the session of a pending or doubted caller: the same caller is answered, a changed one runs again', async () => {
    for (const state of ['pending', 'doubted'] as const) {
      expect(await settle({ ...pending(), state }, () => Promise.resolve({ ...principal }))).toEqual({ outcome: 'answer' });
      const promoted = { ...principal, roles: ['super'], permissions: ['template:read', 'user:read'] } as Principal;
      expect(await settle({ ...pending(), state }, () => Promise.resolve(promoted))).toEqual({ outcome: 'rerun', principal: promoted });
    }
  });

  it('refuses when the session is refused, and lets any other failure through', async () => {
    const revoked = new AppError('UNAUTHENTICATED', 'token revoked: the session has ended');
    expect(await settle(pending(), () => Promise.reject(revoked))).toEqual({ outcome: 'refuse', error: revoked });
    const outage = new Error('connection refused');
    await expect(settle(pending(), () => Promise.reject(outage))).rejects.toBe(outage);
  });
});

describe('samePrincipal', () => {
  it('tells apart callers that could be answered differently, and only those', () => {
    expect(samePrincipal(principal, { ...principal, roles: [...principal.roles], permissions: [...principal.permissions] })).toBe(true);
    for (const changed of [
      { userId: 'other' },
      { kind: 'human' },
      { identifier: 'renamed' },
      { roles: ['infra'] },
      { permissions: ['template:write'] },
      { method: 'session' },
      { sessionId: 'other' },
    ] as Partial<Principal>[]) {
      expect(samePrincipal(principal, { ...principal, ...changed }), JSON.stringify(changed)).toBe(false);
    }
  });
});
