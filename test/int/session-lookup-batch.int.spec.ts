import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { databaseTargets } from '../support/databases.js';

/*
 * Requests read in one turn look their sessions up in one statement (src/auth/authenticator.ts,
 * src/storage/id-batch.ts); each is still decided on its own session's row as it is now. The same
 * statement reads the caller's teams, which a create's default owner comes from.
 */

const isSessionLookup = (text: string): boolean => text.includes('from "sessions" inner join "users"');

for (const target of databaseTargets()) {
  describe(`session lookups of one turn (${target.name})`, () => {
    let harness: HttpHarness;
    const statements: string[] = [];
    const tokens = new Map<string, string>();

    beforeAll(async () => {
      harness = await openHttpApp(target, { onQuery: (text) => statements.push(text) });
      for (const name of ['ops-a', 'ops-b', 'ops-c']) tokens.set(name, await harness.serviceAccount(name, ['default']));
    });
    afterAll(async () => harness.close());

    const me = (token: string) => harness.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });

    it('given several callers authenticated together, when their sessions are looked up, then each is its own caller, in no more statements than callers', async () => {
      const names = ['ops-a', 'ops-b', 'ops-c'];
      const now = harness.clock.peek();
      statements.length = 0;
      // Whether lookups share a turn depends on when each token's signature check resolves, so how
      // many statements ran is not fixed here; test/unit/id-batch.unit.spec.ts pins the batching.
      const callers = await Promise.all(
        names.map((name) => harness.services.authenticator.authenticate(`Bearer ${tokens.get(name) ?? ''}`, now)),
      );
      expect(callers.map((caller) => caller.identifier)).toEqual(names);
      const lookups = statements.filter(isSessionLookup).length;
      expect(lookups).toBeGreaterThan(0);
      expect(lookups).toBeLessThanOrEqual(names.length);
      // Over HTTP, each answers as its own caller.
      const answers = await Promise.all(names.map((name) => me(tokens.get(name) ?? '')));
      expect(answers.map((answer) => answer.json<{ identifier: string }>().identifier)).toEqual(names);
    });

    it("given a caller in one team, when they create without naming an owner, then the session lookup's teams make it the owner, as they are at that request", async () => {
      const member = await harness.serviceAccount('ops-owner', ['default']);
      const memberId = (await me(member)).json<{ id: string }>().id;
      const asAdmin = { authorization: `Bearer ${harness.adminToken}` };
      const team = async (name: string, memberIds: string[]) =>
        (await harness.inject({ method: 'POST', url: '/api/teams', headers: asAdmin, payload: { name, memberIds } })).json<{ id: string }>()
          .id;
      const secret = (name: string) =>
        harness.inject({
          method: 'POST',
          url: '/api/secrets',
          headers: { authorization: `Bearer ${member}` },
          payload: { name, secretProvider: 'custom', configuration: { secrets: [] } },
        });
      const alpha = await team('alpha', [memberId]);
      statements.length = 0;
      const first = await secret('first');
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json<{ ownerId: string }>().ownerId).toBe(alpha);
      // Read with the session: no statement of its own (only the session lookup names the members table).
      expect(statements.filter((text) => text.includes('team_members') && !isSessionLookup(text))).toEqual([]);
      // Moved to another team: the very next create takes that one.
      const left = await harness.inject({ method: 'PATCH', url: `/api/teams/${alpha}`, headers: asAdmin, payload: { memberIds: [] } });
      expect(left.statusCode, left.body).toBe(200);
      const beta = await team('beta', [memberId]);
      const second = await secret('second');
      expect(second.statusCode, second.body).toBe(201);
      expect(second.json<{ ownerId: string }>().ownerId).toBe(beta);
    });

    it('given an ended session among them, when they are authenticated together, then only its request is refused', async () => {
      const ended = await harness.serviceAccount('ops-ended', ['default']);
      const logout = await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${ended}` } });
      expect(logout.statusCode).toBeLessThan(300);
      const answers = await Promise.all([me(tokens.get('ops-a') ?? ''), me(ended), me(tokens.get('ops-b') ?? '')]);
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 200]);
      expect(answers[1].json<{ detail: string }>().detail).toContain('the session has ended');
    });
  });
}
