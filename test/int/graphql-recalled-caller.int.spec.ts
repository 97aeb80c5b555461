import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../src/cli/seed/catalog.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

interface GraphBody {
  readonly data: Json | null;
  readonly errors?: readonly { message: string; extensions: Json }[];
}

const GUARD = '"__session_unchanged"';
const SESSION_LOOKUP = 'from "sessions"';
const refusedFor = (reason: string): GraphBody => ({
  data: null,
  errors: [
    {
      message: `Not authenticated: ${reason}. Please provide a valid bearer token in the Authorization header.`,
      extensions: { code: 'UNAUTHENTICATED' },
    },
  ],
});

/**
 * A service token's second and later GraphQL queries start from the caller as this replica last read
 * the session, and the first statement with rows checks it (src/graphql/speculation.ts). These tests
 * hold that to docs/contract.md §5: a logout, deactivation, revocation or role change still takes effect on the
 * very next request, whatever the query reads.
 */
for (const target of databaseTargets()) {
  describe(`GraphQL for a recalled caller on ${target.name}`, () => {
    let harness: HttpHarness;
    let captured: string[] = [];

    const post = (query: string, token: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
      harness.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        payload: { query },
      });
    /** The answer and every statement the request sent (authentication's included). */
    const run = async (query: string, token: string, headers: Record<string, string> = {}): Promise<{ body: GraphBody; sql: string[] }> => {
      captured = [];
      const response = await post(query, token, headers);
      expect(response.statusCode, response.body).toBe(200);
      return { body: response.json<GraphBody>(), sql: captured };
    };
    /** An account of its own per test, signed in, its token used once so that its session is remembered. */
    const account = async (identifier: string, roles: string[]): Promise<{ token: string; id: string }> => {
      const token = await harness.serviceAccount(identifier, roles);
      const { body } = await run('{ me { id } }', token);
      return { token, id: (body.data?.me as { id: string }).id };
    };
    const admin = async (method: 'POST' | 'PATCH', url: string, payload?: Json): Promise<Record<string, string>> => {
      const response = await harness.inject({ method, url, payload });
      expect(response.statusCode, response.body).toBe(200);
      // Read-your-writes for the next query, as a client would ask for it.
      return { 'x-min-position': String(response.headers['x-position']) };
    };

    beforeAll(async () => {
      harness = await openHttpApp(target, { onQuery: (sql) => captured.push(sql) });
      const summary = await seedCatalog(harness.services, { resources: 12, templates: 3, executors: 2, concurrency: 4, prefix: 'recall' });
      await waitForProjections(harness.services, summary.head);
    }, 120_000);
    afterAll(async () => {
      await harness.close();
    });

    it('sends one statement for a remembered session: the query, with the session check as its first column', async () => {
      const token = await harness.serviceAccount('recall-one-statement', ['default']);
      const query = '{ templates(sort: ["name", "ASC"]) { name } }';
      const first = await run(query, token);
      expect(first.sql.filter((sql) => sql.includes(SESSION_LOOKUP))).toHaveLength(1);
      expect(first.sql.some((sql) => sql.includes(GUARD))).toBe(false);
      const second = await run(query, token);
      expect(second.body).toEqual(first.body);
      expect((second.body.data?.templates as unknown[]).length).toBeGreaterThan(0);
      expect(second.sql).toHaveLength(1);
      expect(second.sql[0]).toContain(GUARD);
      expect(second.sql[0]).not.toContain(SESSION_LOOKUP);
      // A page whose list is empty says nothing of the session: it is read after execution instead.
      const empty = await run('{ templates(filter: {name: "no such template"}) { name } }', token);
      expect(empty.body).toEqual({ data: { templates: [] } });
      expect(empty.sql.filter((sql) => sql.includes(SESSION_LOOKUP))).toHaveLength(1);
    });

    it('refuses the next request after a logout, with the reason, whether the query finds rows or none', async () => {
      const queries = ['{ templates { name } }', '{ templates(filter: {name: "no such template"}) { name } }', '{ me { identifier } }'];
      for (const [index, query] of queries.entries()) {
        const { token } = await account(`recall-logout-${index}`, ['default']);
        const logout = await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } });
        expect(logout.statusCode, logout.body).toBe(204);
        expect((await run(query, token)).body, query).toEqual(refusedFor('token revoked: the session has ended'));
      }
    });

    it("refuses the next request after the user's deactivation or the revocation of their sessions", async () => {
      const deactivated = await account('recall-deactivated', ['default']);
      const headers = await admin('POST', `/api/users/${deactivated.id}/actions/deactivate`);
      expect((await run('{ resources { name } }', deactivated.token, headers)).body).toEqual(refusedFor('user deactivated'));

      const revoked = await account('recall-revoked', ['default']);
      const after = await admin('POST', `/api/users/${revoked.id}/actions/revoke_sessions`);
      expect((await run('{ resources { name } }', revoked.token, after)).body).toEqual(
        refusedFor("token revoked: the user's sessions were revoked"),
      );
    });

    it('answers the next request for the roles the user has now, both ways: the query runs again for them', async () => {
      const { token, id } = await account('recall-promoted', ['default']);
      const query = '{ users(filter: {identifier: "recall-promoted"}) { identifier roles } }';
      const forbidden = await run(query, token);
      expect(forbidden.body.data).toEqual({ users: null });
      expect(forbidden.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');

      const promoted = await admin('PATCH', `/api/users/${id}`, { roles: ['super'] });
      const answered = await run(query, token, promoted);
      expect(answered.body).toEqual({ data: { users: [{ identifier: 'recall-promoted', roles: ['super'] }] } });

      // Remembered as super now: the guarded statement finds rows, sees the change, and the query runs again.
      const demoted = await admin('PATCH', `/api/users/${id}`, { roles: ['default'] });
      const refused = await run(query, token, demoted);
      expect(refused.body.data).toEqual({ users: null });
      expect(refused.body.errors?.map((error) => error.extensions.code)).toEqual(['FORBIDDEN']);
      expect(refused.sql.filter((sql) => sql.includes(GUARD))).toHaveLength(1);
      expect(refused.sql.filter((sql) => sql.includes(SESSION_LOOKUP))).toHaveLength(1);
    });

    it('reads the session on every request of a personal access token', async () => {
      const { token } = await account('recall-pat-owner', ['default']);
      const provider = await harness.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: { name: 'Recall PATs', type: 'personal_access_token', configuration: {} },
      });
      expect(provider.statusCode, provider.body).toBe(201);
      const created = await harness.app.inject({
        method: 'POST',
        url: '/api/personal_access_tokens',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'recall', expiresInDays: 1 },
      });
      expect(created.statusCode, created.body).toBe(201);
      const pat = created.json<{ token: string }>().token;
      for (let i = 0; i < 2; i++) {
        const { body, sql } = await run('{ templates { name } }', pat);
        expect(body.errors).toBeUndefined();
        expect(sql.some((statement) => statement.includes(GUARD))).toBe(false);
        expect(sql.some((statement) => statement.includes('FROM personal_access_tokens'))).toBe(true);
      }
    });

    it('reads the single reads of one turn with one statement, session check included, each answered its own row', async () => {
      const { token } = await account('recall-batched', ['default']);
      const listed = await run('{ resources(sort: ["name", "ASC"], range: [0, 4]) { id name } }', token);
      const resources = listed.body.data?.resources as { id: string; name: string }[];
      expect(resources).toHaveLength(4);
      const ids = [...resources.map((r) => r.id), '00000000-0000-4000-8000-0000000000ff', resources[0]?.id ?? ''];
      const query = 'query One($id: UUID!) { resource(id: $id) { name } }';
      captured = [];
      // Requests read in one poll reach their resolvers in one turn, as concurrent clients' do.
      const answers = await Promise.all(
        ids.map((id) =>
          harness.app.inject({
            method: 'POST',
            url: '/api/graphql',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            payload: { query, variables: { id } },
          }),
        ),
      );
      expect(answers.map((answer) => answer.json<GraphBody>().data)).toEqual([
        ...resources.map((r) => ({ resource: { name: r.name } })),
        { resource: null },
        { resource: { name: resources[0]?.name } },
      ]);
      // Five distinct ids: two statements of four lookups each (the second padded), each with the session check; nothing else.
      expect(captured).toHaveLength(2);
      expect(captured.every((statement) => statement.includes(GUARD) && statement.includes('UNION ALL'))).toBe(true);
    });
  });
}
