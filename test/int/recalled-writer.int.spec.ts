import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

const SESSION_LOOKUP = 'from "sessions" inner join "users"';

/**
 * A service token's catalog creates, updates and deletes start from the caller as this replica last
 * read the session, and the write's append checks the session in its own statement
 * (src/edge/recalled-writes.ts, docs/decisions/0003-speculative-session-check.md). These tests hold
 * that to docs/contract.md §5: a logout, deactivation, revocation, role or team change still takes
 * effect on the very next request, nothing is written for a refused caller, and no answer (an error
 * included) goes out before the caller is confirmed.
 */
for (const target of databaseTargets()) {
  describe(`REST writes for a recalled caller on ${target.name}`, () => {
    let harness: HttpHarness;
    let captured: string[] = [];

    beforeAll(async () => {
      harness = await openHttpApp(target, { onQuery: (sql) => captured.push(sql) });
    }, 120_000);
    afterAll(async () => {
      await harness.close();
    });

    const as = (token: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Json | string, headers: Json = {}) =>
      harness.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(payload !== undefined && { payload }),
      });
    /** The answer and whether the request read the session in a statement of its own. */
    const write = async (...args: Parameters<typeof as>): Promise<{ response: LightMyRequestResponse; lookedUp: boolean }> => {
      captured = [];
      const response = await as(...args);
      return { response, lookedUp: captured.some((sql) => sql.includes(SESSION_LOOKUP)) };
    };
    const createTemplate = (token: string, name: string) =>
      write(token, 'POST', '/api/templates', { name, template: name.replaceAll('-', '_') });
    /** An account of its own per test, its session read once (so remembered): a `GET /api/auth/me`. */
    const account = async (identifier: string, roles: string[]): Promise<{ token: string; id: string }> => {
      const token = await harness.serviceAccount(identifier, roles);
      const me = await harness.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
      expect(me.statusCode, me.body).toBe(200);
      return { token, id: me.json<{ id: string }>().id };
    };
    const admin = async (method: 'POST' | 'PATCH', url: string, payload?: Json): Promise<Json> => {
      const response = await harness.inject({ method, url, ...(payload && { payload }) });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json<Json>();
    };
    /** Templates named exactly `name`, as the administrator reads them. */
    const templatesNamed = async (name: string): Promise<unknown[]> =>
      (await harness.inject({ method: 'GET', url: `/api/templates?name=${name}` }))
        .json<{ name: string }[]>()
        .filter((template) => template.name === name);
    const refusedWith = (response: LightMyRequestResponse, reason: string): void => {
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json<{ detail: string }>().detail).toContain(reason);
    };

    it('given a remembered session, when its caller creates, updates and deletes, then no request reads the session in a statement of its own', async () => {
      const { token } = await account('writer-remembered', ['super']);
      const created = await createTemplate(token, 'writer-remembered');
      expect(created.response.statusCode, created.response.body).toBe(201);
      expect(created.lookedUp).toBe(false);
      const id = created.response.json<{ id: string }>().id;
      const updated = await write(token, 'PATCH', `/api/templates/${id}`, { description: 'changed' });
      expect(updated.response.statusCode, updated.response.body).toBe(200);
      expect(updated.response.json<Json>().description).toBe('changed');
      expect(updated.lookedUp).toBe(false);
      const deleted = await write(token, 'DELETE', `/api/templates/${id}`);
      expect(deleted.response.statusCode, deleted.response.body).toBe(204);
      expect(deleted.lookedUp).toBe(false);
    });

    it('given a logout, a deactivation or revoked sessions, when the caller creates next, then it is refused with the reason and nothing is written', async () => {
      const loggedOut = await account('writer-logged-out', ['super']);
      const logout = await harness.app.inject({
        method: 'POST',
        url: '/api/auth/logout',
        headers: { authorization: `Bearer ${loggedOut.token}` },
      });
      expect(logout.statusCode, logout.body).toBe(204);
      refusedWith((await createTemplate(loggedOut.token, 'writer-after-logout')).response, 'token revoked: the session has ended');
      expect(await templatesNamed('writer-after-logout')).toEqual([]);

      const deactivated = await account('writer-deactivated', ['super']);
      await admin('POST', `/api/users/${deactivated.id}/actions/deactivate`);
      refusedWith((await createTemplate(deactivated.token, 'writer-deactivated')).response, 'user deactivated');
      expect(await templatesNamed('writer-deactivated')).toEqual([]);

      const revoked = await account('writer-revoked', ['super']);
      await admin('POST', `/api/users/${revoked.id}/actions/revoke_sessions`);
      refusedWith((await createTemplate(revoked.token, 'writer-revoked')).response, "token revoked: the user's sessions were revoked");
      expect(await templatesNamed('writer-revoked')).toEqual([]);
    });

    it('given a refused caller, when no append runs (a body that does not parse, a bad id, a no-op update, a refusal), then the answer is still the refusal', async () => {
      const { token } = await account('writer-no-append', ['super']);
      const created = await createTemplate(token, 'writer-no-append');
      const id = created.response.json<{ id: string; name: string }>().id;
      await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } });
      const reason = 'token revoked: the session has ended';
      refusedWith((await write(token, 'POST', '/api/templates', '{"name": ')).response, reason);
      refusedWith((await write(token, 'POST', '/api/templates', { name: 42 })).response, reason);
      refusedWith((await write(token, 'PATCH', '/api/templates/not-an-id', { description: 'x' })).response, reason);
      refusedWith((await write(token, 'PATCH', `/api/templates/${id}`, { name: 'writer-no-append' })).response, reason);
      refusedWith((await write(token, 'DELETE', '/api/templates/00000000-0000-4000-8000-000000000000')).response, reason);
    });

    it('given a valid recalled caller, when the write refuses the input, then the refusal is confirmed by a session lookup and stands', async () => {
      const { token } = await account('writer-bad-input', ['super']);
      const bad = await write(token, 'POST', '/api/templates', { name: 42 });
      expect(bad.response.statusCode, bad.response.body).toBe(400);
      expect(bad.lookedUp).toBe(true);
      const missing = await write(token, 'DELETE', '/api/templates/00000000-0000-4000-8000-000000000000');
      expect(missing.response.statusCode, missing.response.body).toBe(404);
    });

    it('given a role change either way, when the caller writes next, then the write is decided for the roles they have now', async () => {
      const { token, id } = await account('writer-roles', ['default']);
      const forbidden = await createTemplate(token, 'writer-roles-1');
      expect(forbidden.response.statusCode, forbidden.response.body).toBe(403);

      // Remembered without the right: the write is refused before any append, the lookup finds the new
      // roles, and the write runs again for them.
      await admin('PATCH', `/api/users/${id}`, { roles: ['super'] });
      const promoted = await createTemplate(token, 'writer-roles-2');
      expect(promoted.response.statusCode, promoted.response.body).toBe(201);
      expect(promoted.lookedUp).toBe(true);

      // Remembered with the right: the append's check sees the change and writes nothing; the write
      // runs again for the caller as they are now, and is refused.
      await admin('PATCH', `/api/users/${id}`, { roles: ['default'] });
      const demoted = await createTemplate(token, 'writer-roles-3');
      expect(demoted.response.statusCode, demoted.response.body).toBe(403);
      expect(await templatesNamed('writer-roles-3')).toEqual([]);
    });

    it("given a change to the caller's teams, when they create without naming an owner, then the owner is their team as it is now", async () => {
      const { token, id } = await account('writer-teams', ['infra']);
      const alpha = (await admin('POST', '/api/teams', { name: 'writer-alpha', memberIds: [id] })).id as string;
      const secret = (name: string) =>
        write(token, 'POST', '/api/secrets', { name, secretProvider: 'custom', configuration: { secrets: [] } });
      const first = await secret('writer-first');
      expect(first.response.statusCode, first.response.body).toBe(201);
      expect(first.response.json<Json>().ownerId).toBe(alpha);
      expect(first.lookedUp).toBe(true); // the team's creation came after the session was read

      const remembered = await secret('writer-second');
      expect(remembered.lookedUp).toBe(false);
      await admin('PATCH', `/api/teams/${alpha}`, { memberIds: [] });
      const beta = (await admin('POST', '/api/teams', { name: 'writer-beta', memberIds: [id] })).id as string;
      const moved = await secret('writer-third');
      expect(moved.response.statusCode, moved.response.body).toBe(201);
      expect(moved.response.json<Json>().ownerId).toBe(beta);
    });

    it('given writes of several callers going in one grouped append, when one caller was logged out, then only that write is refused', async () => {
      const callers = await Promise.all(['writer-group-a', 'writer-group-b', 'writer-group-c'].map((name) => account(name, ['super'])));
      // One create each first, so that every session is remembered as a writer's.
      for (const [index, caller] of callers.entries()) await createTemplate(caller.token, `writer-group-warm-${index}`);
      const out = callers[1]?.token ?? '';
      await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${out}` } });
      const answers = await Promise.all(
        callers.flatMap((caller, index) =>
          [0, 1].map((n) =>
            as(caller.token, 'POST', '/api/templates', { name: `writer-group-${index}-${n}`, template: `writer_group_${index}_${n}` }),
          ),
        ),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 401, 401, 201, 201]);
      expect(await templatesNamed('writer-group-1-0')).toEqual([]);
      expect(await templatesNamed('writer-group-1-1')).toEqual([]);
    });

    it('given an Idempotency-Key, when the caller writes, then the session is read first, as the key is claimed before the command', async () => {
      const { token } = await account('writer-idempotent', ['super']);
      const keyed = await write(
        token,
        'POST',
        '/api/templates',
        { name: 'writer-idempotent', template: 'writer_idempotent' },
        { 'idempotency-key': 'writer-key-1' },
      );
      expect(keyed.response.statusCode, keyed.response.body).toBe(201);
      expect(keyed.lookedUp).toBe(true);
    });
  });
}
