import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { RecalledWriter } from '../../src/auth/authenticator.js';
import { authorize } from '../../src/edge/authorize.js';
import { commandContext } from '../../src/edge/context.js';
import {
  appendConditionOf,
  awaitsConfirmation,
  confirmedWrite,
  confirmWriter,
  startRecalledWrite,
} from '../../src/edge/recalled-writes.js';
import { AppError } from '../../src/errors.js';
import { AppendConditionError } from '../../src/events/store/port.js';
import type { Principal } from '../../src/model/principal.js';

const recalledPrincipal: Principal = {
  userId: '6f1c1a52-0b5e-4a43-9d0e-0d3b8d7b2f11',
  kind: 'service_account',
  identifier: 'ci-bot',
  roles: ['super'],
  permissions: ['template:write'],
  method: 'service_account',
  sessionId: '0b8f4a2e-0d43-4c39-a0b6-5f0f2c1d9e77',
  teams: [{ teamId: '9d1f6c1e-2a7b-4c55-8e21-3c4b5d6e7f80', role: 'member' }],
};
const writer: RecalledWriter = {
  principal: recalledPrincipal,
  guard: { sessionId: recalledPrincipal.sessionId ?? '', fingerprint: '17.42' },
  condition: { sql: (first) => `$${first}::text = 'yes'`, parameters: ['yes'] },
};

/** A request started from the recalled writer (only its identity and headers matter here). */
const recalledRequest = (): FastifyRequest => {
  const request = { id: 'req-1', headers: {}, log: { debug: () => undefined, info: () => undefined } } as unknown as FastifyRequest;
  startRecalledWrite(request, 'Bearer t', writer);
  return request;
};

/** An authenticator that answers `answer` and counts its lookups. */
const lookups = (answer: Principal | AppError) => {
  const calls: string[] = [];
  const authenticate = (header: string): Promise<Principal> => {
    calls.push(header);
    return answer instanceof AppError ? Promise.reject(answer) : Promise.resolve(answer);
  };
  return { calls, authenticate };
};

/** A write that appends (confirming the caller) or not, and says for whom it ran each time. */
const runs = (request: FastifyRequest, outcomes: readonly ('append' | 'no-op' | 'condition-failed' | 'refuse')[]) => {
  const ranFor: string[] = [];
  let attempt = 0;
  const run = (): Promise<string> => {
    const principal = authorize(request);
    ranFor.push(principal.roles.join(','));
    const outcome = outcomes[attempt++] ?? 'append';
    if (outcome === 'condition-failed') return Promise.reject(new AppendConditionError());
    if (outcome === 'refuse') return Promise.reject(new AppError('NOT_FOUND', 'template not found'));
    if (outcome === 'append') confirmWriter(request);
    return Promise.resolve(outcome);
  };
  return { ranFor, run };
};

describe('a recalled writer: unconfirmed until an append carrying its condition commits', () => {
  it('given a recalled writer, when a command is run for the request, then its append carries the condition until one commits', () => {
    const request = recalledRequest();
    expect(commandContext(request, new Date()).condition).toBe(writer.condition);
    confirmWriter(request);
    expect(appendConditionOf(request)).toBeUndefined();
    expect(commandContext(request, new Date()).condition).toBeUndefined();
    expect(awaitsConfirmation(request)).toBe(false);
  });

  it('given the append committed, when the write ends, then it is answered without reading the session', async () => {
    const request = recalledRequest();
    const { calls, authenticate } = lookups(recalledPrincipal);
    const { ranFor, run } = runs(request, ['append']);
    await expect(confirmedWrite(request, authenticate, run)).resolves.toBe('append');
    expect(calls).toEqual([]);
    expect(ranFor).toEqual(['super']);
  });

  it('given nothing was appended, when the session shows the same caller, then the outcome stands, a refusal included', async () => {
    for (const outcome of ['no-op', 'refuse'] as const) {
      const request = recalledRequest();
      const { calls, authenticate } = lookups(recalledPrincipal);
      const { ranFor, run } = runs(request, [outcome]);
      const answered = confirmedWrite(request, authenticate, run);
      if (outcome === 'refuse') await expect(answered).rejects.toMatchObject({ code: 'NOT_FOUND' });
      else await expect(answered).resolves.toBe('no-op');
      expect(calls).toEqual(['Bearer t']);
      expect(ranFor).toEqual(['super']);
      expect(awaitsConfirmation(request)).toBe(false);
    }
  });

  it('given nothing was appended, when the session is refused, then the refusal is the answer and the write does not run again', async () => {
    const request = recalledRequest();
    const refusal = new AppError('UNAUTHENTICATED', 'token revoked: the session has ended');
    const { authenticate } = lookups(refusal);
    const { ranFor, run } = runs(request, ['refuse']);
    await expect(confirmedWrite(request, authenticate, run)).rejects.toBe(refusal);
    expect(ranFor).toEqual(['super']);
  });

  it('given the session shows another caller (roles or teams), when nothing was appended, then the write runs again for them', async () => {
    const changes: Partial<Principal>[] = [
      { roles: ['default'], permissions: ['template:read'] },
      { teams: [{ teamId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', role: 'member' }] },
    ];
    for (const change of changes) {
      const request = recalledRequest();
      const now = { ...recalledPrincipal, ...change };
      const { authenticate } = lookups(now);
      const { ranFor, run } = runs(request, ['refuse', 'no-op']);
      await expect(confirmedWrite(request, authenticate, run)).resolves.toBe('no-op');
      expect(ranFor).toEqual(['super', now.roles.join(',')]);
      expect(authorize(request)).toBe(now);
    }
  });

  it('given the append found the session changed, when the lookup shows the same caller, then the write still runs again (nothing was written)', async () => {
    const request = recalledRequest();
    const { calls, authenticate } = lookups(recalledPrincipal);
    const { ranFor, run } = runs(request, ['condition-failed', 'append']);
    await expect(confirmedWrite(request, authenticate, run)).resolves.toBe('append');
    expect(calls).toHaveLength(1);
    expect(ranFor).toEqual(['super', 'super']);
  });

  it('given a request that was not recalled, when it writes, then the write runs once as it is', async () => {
    const request = { id: 'req-2', headers: {} } as unknown as FastifyRequest;
    const { calls, authenticate } = lookups(recalledPrincipal);
    await expect(confirmedWrite(request, authenticate, () => Promise.resolve('plain'))).resolves.toBe('plain');
    expect(calls).toEqual([]);
    expect(commandContext(request, new Date()).condition).toBeUndefined();
  });
});
