import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

interface Hit {
  kind: string;
  plural: string;
  id: string;
  name: string;
  match: string;
  score: number;
  href: string;
  link: string;
}

/**
 * One search across every kind (docs/api/rest.md, "Search"; GraphQL `search`): ranked by where the
 * text matched, limited to what the caller may read, paged, and refusing bad input by name.
 */
for (const target of databaseTargets()) {
  describe(`search across kinds on ${target.name}`, () => {
    let h: HttpHarness;
    let member: string;
    let stranger: string;
    const ids: Record<string, string> = {};

    const create = async (plural: string, body: Json): Promise<string> => {
      const response = await h.inject({ method: 'POST', url: `/api/${plural}`, payload: body });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string }>().id;
    };
    const search = (query: string, token?: string): Promise<LightMyRequestResponse> =>
      h.inject({ method: 'GET', url: `/api/search?${query}`, ...(token && { headers: { authorization: `Bearer ${token}` } }) });
    const hits = async (query: string, token?: string): Promise<Hit[]> => {
      const response = await search(query, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Hit[]>();
    };
    const q = (text: string) => `q=${encodeURIComponent(text)}`;

    beforeAll(async () => {
      h = await openHttpApp(target);
      member = await h.serviceAccount(`member-${target.name}`, ['default']);
      stranger = await h.serviceAccount(`stranger-${target.name}`, ['default']);
      const memberId = (await h.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${member}` } })).json<{
        id: string;
      }>().id;
      ids.team = await create('teams', { name: 'Payments', memberIds: [memberId] });
      ids.prefix = await create('templates', { name: 'Payments API', template: 'payments_api' });
      ids.label = await create('templates', { name: 'Ledger', template: 'ledger', labels: ['payments'] });
      ids.description = await create('templates', { name: 'Orders', template: 'orders', description: 'Takes payments for orders' });
      ids.contains = await create('templates', { name: 'EU payments gateway', template: 'eu_payments_gateway' });
      ids.source = await create('source_codes', {
        sourceCodeUrl: 'https://github.com/acme/payments-modules',
        sourceCodeProvider: 'github',
      });
      ids.secret = await create('secrets', {
        name: 'payments-db-password',
        secretProvider: 'custom',
        ownerId: ids.team,
        configuration: { secrets: [{ name: 'K', value: 'v' }] },
      });
      await create('templates', { name: 'Unrelated', template: 'unrelated' });
    });
    afterAll(async () => {
      await h.close();
    });

    it('finds every kind by name, identifier, label and description, best match first, each with where to open it', async () => {
      const found = await hits(q('payments'));
      expect(found.map((hit) => [hit.kind, hit.name, hit.match, hit.score])).toEqual([
        ['team', 'Payments', 'name', 90],
        ['template', 'Payments API', 'name_prefix', 70],
        ['secret', 'payments-db-password', 'name_prefix', 70],
        ['template', 'EU payments gateway', 'name_contains', 50],
        ['source_code', 'https://github.com/acme/payments-modules', 'name_contains', 50],
        ['template', 'Ledger', 'label', 30],
        ['template', 'Orders', 'description', 20],
      ]);
      expect(found[1]).toMatchObject({ id: ids.prefix, href: `/api/templates/${ids.prefix}`, link: `/templates/${ids.prefix}/show` });
      expect(found.some((hit) => hit.name === 'Unrelated')).toBe(false);
    });

    it("keeps out what the caller may not read: an owned secret is found by its team's members only", async () => {
      expect((await hits(q('payments'), member)).map((hit) => hit.name)).toContain('payments-db-password');
      const strangers = await hits(q('payments'), stranger);
      expect(strangers.map((hit) => hit.name)).not.toContain('payments-db-password');
      expect(strangers.map((hit) => hit.name)).toContain('Payments API');
    });

    it('narrows to the kinds asked for, pages with range and says the total in Content-Range', async () => {
      expect((await hits(`${q('payments')}&kinds=${encodeURIComponent('["template"]')}`)).map((hit) => hit.name)).toEqual([
        'Payments API',
        'EU payments gateway',
        'Ledger',
        'Orders',
      ]);
      const page = await search(`${q('payments')}&range=${encodeURIComponent('[1,2]')}`);
      expect(page.json<Hit[]>().map((hit) => hit.name)).toEqual(['Payments API', 'payments-db-password']);
      expect(page.headers['content-range']).toBe('search 1-2/7');
      const past = await search(`${q('payments')}&range=${encodeURIComponent('[50,10]')}`);
      expect(past.json<Hit[]>()).toEqual([]);
      expect(past.headers['content-range']).toBe('search */7');
    });

    it('finds an entity by its id, and takes LIKE wildcards literally', async () => {
      expect(await hits(q(ids.label ?? ''))).toEqual([expect.objectContaining({ id: ids.label, match: 'id', score: 100 })]);
      expect(await hits(q('%'))).toEqual([]);
      expect(await hits(q('pay_ents'))).toEqual([]);
    });

    it('refuses bad input with a 400 naming each parameter, and an anonymous caller with a 401', async () => {
      const refused = async (query: string, field: string) => {
        const response = await search(query);
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json<{ code: string; errors: { field: string }[] }>()).toMatchObject({ code: 'VALIDATION', errors: [{ field }] });
      };
      await refused('', 'q');
      await refused(q('   '), 'q');
      await refused(q('x'.repeat(201)), 'q');
      await refused(`${q('a')}&kinds=${encodeURIComponent('["planet"]')}`, 'kinds[0]');
      await refused(`${q('a')}&kinds=template`, 'kinds');
      await refused(`${q('a')}&range=${encodeURIComponent('[0,100000]')}`, 'range[1]');
      await refused(`${q('a')}&sort=name`, 'sort');
      await refused(`${q('a')}&range=${encodeURIComponent('[0,1]')}&range=${encodeURIComponent('[0,2]')}`, 'range');
      const anonymous = await h.app.inject({ method: 'GET', url: `/api/search?${q('payments')}` });
      expect(anonymous.statusCode).toBe(401);
    });

    it('answers the same hits through GraphQL, with the count and field errors for bad arguments', async () => {
      const graphql = async (query: string, variables: Json) =>
        (await h.inject({ method: 'POST', url: '/api/graphql', payload: { query, variables } })).json<{
          data: { search: Hit[] | null; searchCount: number | null } | null;
          errors?: { path: string[]; extensions: { code: string } }[];
        }>();
      const rest = await hits(q('payments'));
      const answer = await graphql('query ($q: String!) { search(q: $q) { kind id name match score link } searchCount(q: $q) }', {
        q: 'payments',
      });
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.search).toEqual(rest.map(({ kind, id, name, match, score, link }) => ({ kind, id, name, match, score, link })));
      expect(answer.data?.searchCount).toBe(rest.length);
      const bad = await graphql('{ search(q: "a", kinds: ["planet"]) { id } }', {});
      expect(bad.errors?.[0]).toMatchObject({ path: ['search'], extensions: { code: 'BAD_USER_INPUT' } });
    });
  });
}
