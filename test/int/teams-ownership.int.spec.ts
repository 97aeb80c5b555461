import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { collect, wsClient, type Received } from '../support/graphql-ws.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { startBackstagePortal, type BackstagePortal } from '../support/idp/backstage.js';
import { createProvider } from '../support/idp/sso-harness.js';

type Json = Record<string, unknown>;

interface Problem {
  status: number;
  detail: string;
  missingPermission?: string;
}

/**
 * Teams, owners and permissions per entity (docs/contract.md §6), end to end over HTTP: two teams,
 * what each one's members may see and change of the other's, approvals by the owning team's leads,
 * grants, sign-in membership from a Backstage token's `ent`, and the audit log in words.
 */
for (const target of databaseTargets()) {
  describe(`teams and ownership on ${target.name}`, () => {
    let h: HttpHarness;
    let portal: BackstagePortal;
    let baseUrl: string;
    /** Tokens and user ids of: a payments member, the payments lead, a search member. */
    const people = {} as Record<'alice' | 'lena' | 'bob', { token: string; id: string }>;
    let payments: string;
    let search: string;
    let paymentsSecret: string;
    let searchSecret: string;
    let unownedSecret: string;
    let paymentsTemplate: string;
    let unownedTemplate: string;

    const as = (who: keyof typeof people | null) => (who === null ? {} : { headers: { authorization: `Bearer ${people[who].token}` } });
    const get = (url: string, who: keyof typeof people | null = null) => h.inject({ method: 'GET', url, ...as(who) });
    const send = (
      method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
      url: string,
      payload: Json | undefined,
      who: keyof typeof people | null = null,
    ) => h.inject({ method, url, ...(payload === undefined ? {} : { payload }), ...as(who) });
    /** The answer's body, after asserting its status. */
    const ok = (response: LightMyRequestResponse, status = 200) => {
      expect(response.statusCode, response.body).toBe(status);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
      return { json: <T = Json>(): T => response.json<T>() };
    };
    const gql = async (query: string, who: keyof typeof people, variables: Json = {}) =>
      (
        await h.app.inject({
          method: 'POST',
          url: '/api/graphql',
          headers: { authorization: `Bearer ${people[who].token}` },
          payload: { query, variables },
        })
      ).json<{
        data: Json | null;
        errors?: { message: string }[];
      }>();
    const customSecret = (name: string, ownerId: string | null) => ({
      name,
      secretProvider: 'custom',
      ownerId,
      configuration: { secrets: [{ name: 'K', value: `value-of-${name}` }] },
    });
    const ids = (response: LightMyRequestResponse): string[] => response.json<{ id: string }[]>().map((row) => row.id);

    beforeAll(async () => {
      h = await openHttpApp(target, { env: { SSO_ALLOW_PRIVATE_ADDRESSES: 'true', BACKSTAGE_JWKS_COOLDOWN_SECONDS: '0' } });
      baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
      portal = await startBackstagePortal(() => Math.floor(h.clock.peek().getTime() / 1000));
      for (const name of ['alice', 'lena', 'bob'] as const) {
        const token = await h.serviceAccount(`${name}-${target.name}`, ['default']);
        const me = ok(await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } })).json<{
          id: string;
        }>();
        people[name] = { token, id: me.id };
      }
      payments = ok(
        await send('POST', '/api/teams', {
          name: 'payments',
          memberIds: [people.alice.id],
          leadIds: [people.lena.id],
          groupReferences: ['Group:default/Payments'],
        }),
        201,
      ).json<{ id: string }>().id;
      search = ok(await send('POST', '/api/teams', { name: 'search', memberIds: [people.bob.id] }), 201).json<{ id: string }>().id;
      paymentsSecret = ok(await send('POST', '/api/secrets', customSecret('payments db', payments)), 201).json<{ id: string }>().id;
      searchSecret = ok(await send('POST', '/api/secrets', customSecret('search db', search)), 201).json<{ id: string }>().id;
      unownedSecret = ok(await send('POST', '/api/secrets', customSecret('shared db', null)), 201).json<{ id: string }>().id;
      paymentsTemplate = ok(
        await send('POST', '/api/templates', { name: 'payments queue', template: 'payments_queue', abstract: true, ownerId: payments }),
        201,
      ).json<{ id: string }>().id;
      unownedTemplate = ok(
        await send('POST', '/api/templates', { name: 'shared cache', template: 'shared_cache', abstract: true }),
        201,
      ).json<{ id: string }>().id;
    }, 60_000);
    afterAll(async () => {
      await h.close();
      await portal.close();
    });

    it('shows teams with their members and leads, lower-cases group references, and refuses deleting one that owns something', async () => {
      const team = ok(await get(`/api/teams/${payments}`)).json();
      expect(team).toMatchObject({
        name: 'payments',
        memberIds: [people.alice.id],
        leadIds: [people.lena.id],
        groupReferences: ['group:default/payments'],
      });
      const refused = await send('DELETE', `/api/teams/${payments}`, undefined);
      expect(refused.statusCode).toBe(409);
      expect(refused.json<Problem>().detail).toMatch(/^team is still referenced by secret "payments db"/);
      // A default user may not create teams; a member may not change their team, its lead may.
      expect((await send('POST', '/api/teams', { name: 'rogue' }, 'bob')).statusCode).toBe(403);
      expect((await send('PATCH', `/api/teams/${payments}`, { description: 'mine now' }, 'alice')).statusCode).toBe(403);
      expect(ok(await send('PATCH', `/api/teams/${payments}`, { description: 'Card payments' }, 'lena')).json().description).toBe(
        'Card payments',
      );
    });

    it("keeps a team's secrets from the other team's members: lists, by id, counts and GraphQL", async () => {
      expect(ids(await get('/api/secrets', 'bob'))).toEqual(expect.arrayContaining([searchSecret, unownedSecret]));
      expect(ids(await get('/api/secrets', 'bob'))).not.toContain(paymentsSecret);
      expect((await get(`/api/secrets/${paymentsSecret}`, 'bob')).statusCode).toBe(404);
      expect(ids(await get('/api/secrets', 'alice'))).toEqual(expect.arrayContaining([paymentsSecret, unownedSecret]));
      expect(ids(await get('/api/secrets', 'alice'))).not.toContain(searchSecret);
      expect(ok(await get(`/api/secrets/${paymentsSecret}`, 'alice')).json().ownerId).toBe(payments);

      const graph = await gql('query ($id: UUID) { secrets { id owner { id name } } secretsCount secret(id: $id) { id } }', 'bob', {
        id: paymentsSecret,
      });
      expect(graph.errors).toBeUndefined();
      const listed = (graph.data?.secrets as { id: string; owner: { name: string } | null }[]).map((s) => s.id);
      expect(listed).toContain(searchSecret);
      expect(listed).not.toContain(paymentsSecret);
      expect(graph.data?.secretsCount).toBe(listed.length);
      expect(graph.data?.secret).toBeNull();
      const mine = await gql('query ($id: UUID) { secret(id: $id) { id owner { name } myPermissions availableActions } }', 'alice', {
        id: paymentsSecret,
      });
      expect(mine.data?.secret).toEqual({
        id: paymentsSecret,
        owner: { name: 'payments' },
        myPermissions: ['read', 'write'],
        availableActions: ['update', 'disable', 'delete'],
      });
      // One document, its statement compiled once: each caller and each id still gets only its own answer.
      const one = 'query One($id: UUID) { secret(id: $id) { id } }';
      const answers = [
        await gql(one, 'alice', { id: paymentsSecret }),
        await gql(one, 'bob', { id: paymentsSecret }),
        await gql(one, 'alice', { id: unownedSecret }),
        await gql(one, 'bob', { id: searchSecret }),
      ].map((answer) => answer.data?.secret);
      expect(answers).toEqual([{ id: paymentsSecret }, null, { id: unownedSecret }, { id: searchSecret }]);
    });

    it("lets a team's members change what it owns, its leads change the owner, and nobody else", async () => {
      expect((await send('PATCH', `/api/secrets/${paymentsSecret}`, { description: 'by bob' }, 'bob')).statusCode).toBe(404);
      expect(ok(await send('PATCH', `/api/secrets/${paymentsSecret}`, { description: 'by alice' }, 'alice')).json().description).toBe(
        'by alice',
      );
      const moved = await send('PATCH', `/api/secrets/${paymentsSecret}`, { ownerId: search }, 'alice');
      expect(moved.statusCode).toBe(403);
      expect(moved.json<Problem>()).toMatchObject({ detail: 'missing permission secret:admin', missingPermission: 'secret:admin' });
      // Bob may read the shared template but not change it (template:read only).
      expect((await send('PATCH', `/api/templates/${unownedTemplate}`, { description: 'x' }, 'bob')).statusCode).toBe(403);
      // A member creates for their only team without naming it; naming another team is refused.
      const created = ok(
        await send('POST', '/api/secrets', { name: 'alice made', secretProvider: 'custom', configuration: { secrets: [] } }, 'alice'),
        201,
      ).json();
      expect(created.ownerId).toBe(payments);
      expect((await send('POST', '/api/secrets', customSecret('alice for search', search), 'alice')).statusCode).toBe(403);
      const lead = await send('PATCH', `/api/secrets/${created.id as string}`, { ownerId: null }, 'lena');
      expect(ok(lead).json().ownerId).toBeNull();
    });

    it('answers what the caller may do with an entity, and takes grants from those who administer it', async () => {
      const bobView = ok(await get(`/api/templates/${paymentsTemplate}/permissions`, 'bob')).json();
      expect(bobView).toMatchObject({
        myPermissions: ['read'],
        availableActions: [],
        owner: { id: payments, name: 'payments' },
        myTeamRole: null,
        grants: [],
      });
      expect(ok(await get(`/api/templates/${paymentsTemplate}/permissions`, 'lena')).json()).toMatchObject({
        myPermissions: ['read', 'write', 'admin'],
        availableActions: ['update', 'disable', 'delete', 'changeOwner', 'grant'],
        myTeamRole: 'lead',
      });
      expect(
        (
          await send(
            'PUT',
            `/api/templates/${paymentsTemplate}/grants`,
            { subjectType: 'user', subjectId: people.bob.id, level: 'write' },
            'alice',
          )
        ).statusCode,
      ).toBe(403);
      const granted = ok(
        await send('PUT', `/api/templates/${paymentsTemplate}/grants`, { subjectType: 'team', subjectId: search, level: 'write' }, 'lena'),
      ).json();
      expect(granted.grants).toEqual([
        expect.objectContaining({ subjectType: 'team', subjectId: search, subjectName: 'search', level: 'write' }),
      ]);
      expect(ok(await send('PATCH', `/api/templates/${paymentsTemplate}`, { description: 'search helps' }, 'bob')).json().description).toBe(
        'search helps',
      );
      expect(ok(await get(`/api/templates/${paymentsTemplate}/permissions`, 'bob')).json().myPermissions).toEqual(['read', 'write']);
      const bad = await send(
        'PUT',
        `/api/templates/${paymentsTemplate}/grants`,
        { subjectType: 'team', subjectId: '00000000-0000-4000-8000-000000000000', level: 'read' },
        'lena',
      );
      expect(bad.statusCode).toBe(422);
      ok(await send('DELETE', `/api/templates/${paymentsTemplate}/grants/team/${search}`, undefined, 'lena')).json();
      expect((await send('PATCH', `/api/templates/${paymentsTemplate}`, { description: 'again' }, 'bob')).statusCode).toBe(403);
      // The same over GraphQL.
      const graph = await gql(
        'mutation ($id: UUID!, $team: UUID!) { grantEntityPermission(entityType: "template", id: $id, subjectType: "team", subjectId: ' +
          '$team, level: "read") { grants { subjectName level } } }',
        'lena',
        { id: paymentsTemplate, team: search },
      );
      expect(graph).toEqual({ data: { grantEntityPermission: { grants: [{ subjectName: 'search', level: 'read' }] } } });
    });

    it("waits for the template's team's leads to approve a request, and lists it only for them", async () => {
      const request = ok(
        await send('POST', '/api/resources', { name: `pay-${target.name}`, templateId: paymentsTemplate }, 'bob'),
        201,
      ).json<{ id: string; status: string }>();
      expect(request.status).toBe('approval_pending');
      const shared = ok(
        await send('POST', '/api/resources', { name: `shared-${target.name}`, templateId: unownedTemplate }, 'bob'),
        201,
      ).json<{ id: string }>();
      expect(ids(await get('/api/approvals', 'lena'))).toEqual([request.id]);
      expect(ids(await get('/api/approvals', 'alice'))).toEqual([]);
      expect(ids(await get('/api/approvals', 'bob'))).toEqual([]);
      expect(ids(await get('/api/approvals'))).toEqual(expect.arrayContaining([request.id, shared.id]));
      expect((await gql('{ approvals { id } approvalsCount }', 'lena')).data).toEqual({
        approvals: [{ id: request.id }],
        approvalsCount: 1,
      });
      const refused = await send('POST', `/api/resources/${request.id}/actions/approve`, {}, 'alice');
      expect(refused.statusCode).toBe(403);
      expect(ok(await get(`/api/resources/${request.id}/permissions`, 'lena')).json().availableActions).toEqual(
        expect.arrayContaining(['approve', 'reject']),
      );
      expect(ok(await get(`/api/resources/${request.id}/permissions`, 'bob')).json().availableActions).not.toContain('approve');
      expect(
        ok(await send('POST', `/api/resources/${request.id}/actions/approve`, { reason: 'fine' }, 'lena')).json<{ status: string }>()
          .status,
      ).toBe('ready');
      const audit = ok(await get(`/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: request.id }))}`)).json<
        { action: string; changes: Json; verb: string }[]
      >();
      expect(audit.find((entry) => entry.verb === 'approved')?.changes).toMatchObject({
        authority: 'lead of team payments',
        reason: 'fine',
      });
    });

    it('records ownership and grant changes in the audit log in words', async () => {
      const entries = ok(
        await get(`/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: paymentsTemplate }))}&range=[0,100]`),
      ).json<{ verb: string; entityType: string; entityId: string; diff: { field: string }[] }[]>();
      expect(entries.map((entry) => entry.verb)).toEqual(expect.arrayContaining(['created', 'updated']));
      const grants = ok(await get(`/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityType: 'access' }))}`)).json<
        { verb: string }[]
      >();
      expect(grants.map((entry) => entry.verb)).toEqual(expect.arrayContaining(['access_granted', 'access_revoked']));
    });

    it('filters live changes of a team-owned secret the same way', async () => {
      const bob = wsClient(baseUrl, people.bob.token);
      const alice = wsClient(baseUrl, people.alice.token);
      const query = 'subscription { changes(entityTypes: ["secret"]) { entityId action } }';
      const bobs = collect(bob, query);
      const alices = collect(alice, query);
      // Both subscriptions know their starting point before the writes: they see them, not a replay gap.
      const feed = h.services.changes;
      if (feed.listening < 2) {
        await new Promise<void>((resolve) => {
          const look = (): void => {
            if (feed.listening < 2) return;
            feed.progress.off('listeners', look);
            resolve();
          };
          feed.progress.on('listeners', look);
        });
      }
      ok(await send('PATCH', `/api/secrets/${paymentsSecret}`, { description: 'live 1' })).json();
      ok(await send('PATCH', `/api/secrets/${unownedSecret}`, { description: 'live 2' })).json();
      await alices.waitFor(2);
      await bobs.waitFor(1);
      const seen = (items: readonly Received[]) =>
        items.flatMap((item) => ('data' in item ? [(item.data.changes as { entityId: string }).entityId] : []));
      expect(seen(alices.items)).toEqual([paymentsSecret, unownedSecret]);
      expect(seen(bobs.items)).toEqual([unownedSecret]);
      bobs.unsubscribe();
      alices.unsubscribe();
      await bob.dispose();
      await alice.dispose();
    });

    it("makes a Backstage user a member of the team naming a group of the token's ent, at each sign-in", async () => {
      await createProvider(h, { name: `Portal ${target.name}`, type: 'backstage', configuration: { jwksUrl: portal.jwksUrl } });
      const member = await portal.sign({ sub: 'user:default/pat', claims: { ent: ['user:default/pat', 'group:default/payments'] } });
      const call = (token: string, url: string) => h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      expect((await call(member, `/api/secrets/${paymentsSecret}`)).statusCode).toBe(200);
      expect(ok(await call(member, `/api/teams/${payments}/permissions`)).json().myTeamRole).toBe('member');
      // Leaving the group in the portal ends the membership at the next sign-in.
      const left = await portal.sign({ sub: 'user:default/pat', claims: { ent: ['user:default/pat'] } });
      expect((await call(left, `/api/secrets/${paymentsSecret}`)).statusCode).toBe(404);
    });
  });
}
