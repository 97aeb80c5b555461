import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { graphqlOf } from '../support/graphql-call.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/** Favorites (docs/contract.md §2): starred per user, listed, answered as `isFavorite`, never past what the caller may read. */
for (const target of databaseTargets()) {
  describe(`favorites on ${target.name}`, () => {
    let h: HttpHarness;
    let templateId: string;
    let other: string;
    let integrationId: string;

    const graphql = graphqlOf(() => h);
    const star = (url: string, method: 'PUT' | 'DELETE' = 'PUT', token?: string) =>
      h.inject({ method, url: `/api/favorites/${url}`, ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }) });

    beforeAll(async () => {
      h = await openHttpApp(target);
      const template = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'fav web', template: 'fav_web' } });
      templateId = template.json<{ id: string }>().id;
      other = await h.serviceAccount('fav-other', ['default']);
      const team = await h.inject({ method: 'POST', url: '/api/teams', payload: { name: 'fav owners' } });
      const integration = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'fav git',
          integrationType: 'git',
          integrationProvider: 'git_public',
          configuration: {},
          ownerId: team.json<{ id: string }>().id,
        },
      });
      integrationId = integration.json<{ id: string }>().id;
    });
    afterAll(() => h.close());

    it('stars an entity once, lists it, answers isFavorite for its starrer only, and unstars it', async () => {
      const first = await star(`template/${templateId}`);
      expect(first.statusCode, first.body).toBe(204);
      expect(first.headers['x-position']).toBeDefined();
      const again = await star(`template/${templateId}`);
      expect(again.statusCode).toBe(204);
      expect(again.headers['x-position'], 'starring twice writes nothing').toBeUndefined();

      const listed = await h.inject({ method: 'GET', url: '/api/favorites' });
      expect(listed.json()).toEqual([
        expect.objectContaining({
          entityType: 'template',
          plural: 'templates',
          entityId: templateId,
          name: 'fav web',
          href: `/api/templates/${templateId}`,
          link: `/templates/${templateId}/show`,
        }),
      ]);
      const query = 'query ($id: UUID!) { template(id: $id) { isFavorite } templates { name isFavorite } favorites { entityId name } }';
      const mine = await graphql(query, { id: templateId });
      expect(mine.data?.template).toEqual({ isFavorite: true });
      expect(mine.data?.templates).toContainEqual({ name: 'fav web', isFavorite: true });
      expect(mine.data?.favorites).toEqual([{ entityId: templateId, name: 'fav web' }]);
      const theirs = await graphql(query, { id: templateId }, other);
      expect(theirs.data).toMatchObject({ template: { isFavorite: false }, favorites: [] });

      expect((await star(`template/${templateId}`, 'DELETE')).statusCode).toBe(204);
      expect((await star(`template/${templateId}`, 'DELETE')).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: '/api/favorites' })).json()).toEqual([]);
    });

    it('stars through GraphQL, and drops a deleted entity from the list', async () => {
      const created = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'fav gone', template: 'fav_gone' } });
      const id = created.json<{ id: string }>().id;
      expect(await graphql('mutation ($id: UUID!) { addFavorite(entityType: "template", id: $id) }', { id })).toEqual({
        data: { addFavorite: true },
      });
      expect((await graphql('{ favorites { name } }')).data?.favorites).toEqual([{ name: 'fav gone' }]);
      expect((await h.inject({ method: 'DELETE', url: `/api/templates/${id}` })).statusCode).toBe(204);
      expect((await graphql('{ favorites { name } }')).data?.favorites).toEqual([]);
      expect(await graphql('mutation ($id: UUID!) { removeFavorite(entityType: "template", id: $id) }', { id })).toEqual({
        data: { removeFavorite: true },
      });
    });

    it('refuses what the caller may not read as absent, and bad input naming the part', async () => {
      const hidden = await star(`integration/${integrationId}`, 'PUT', other);
      expect(hidden.statusCode).toBe(404);
      expect((await star(`integration/${integrationId}`)).statusCode, 'the super user may').toBe(204);
      const badKind = await star(`gadget/${templateId}`);
      expect(badKind.statusCode).toBe(400);
      expect(badKind.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['entityType']);
      const badId = await star('template/not-an-id');
      expect(badId.statusCode).toBe(400);
      expect(badId.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['id']);
      const none = await star('template/00000000-0000-4000-8000-000000000000');
      expect(none.statusCode).toBe(404);
      const gql = await graphql('mutation { addFavorite(entityType: "gadget", id: "00000000-0000-4000-8000-000000000000") }');
      expect(gql.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    });
  });
}
