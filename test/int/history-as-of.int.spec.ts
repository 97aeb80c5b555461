import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { graphqlOf } from '../support/graphql-call.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * History you can query (docs/contract.md §2): an entity read as of a revision, a log position or a
 * time, folded from its events, over REST and GraphQL; the diff of two revisions; the same
 * permissions as today's view.
 */

for (const target of databaseTargets()) {
  describe(`history you can query on ${target.name}`, () => {
    let h: HttpHarness;
    let id: string;
    const positions: string[] = [];
    let createdAt: string;

    const graphql = graphqlOf(() => h);

    beforeAll(async () => {
      h = await openHttpApp(target);
      const created = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'asof one', template: 'asof_one' } });
      expect(created.statusCode, created.body).toBe(201);
      id = created.json<{ id: string; createdAt: string }>().id;
      createdAt = created.json<{ createdAt: string }>().createdAt;
      positions.push(String(created.headers['x-position']));
      for (const [name, description] of [
        ['asof two', 'renamed once'],
        ['asof three', 'renamed twice'],
      ]) {
        const renamed = await h.inject({ method: 'PATCH', url: `/api/templates/${id}`, payload: { name, description } });
        expect(renamed.statusCode, renamed.body).toBe(200);
        positions.push(String(renamed.headers['x-position']));
      }
    });
    afterAll(() => h.close());

    it('reads an entity renamed twice as of each of three positions, and of each revision', async () => {
      const names = ['asof one', 'asof two', 'asof three'];
      for (const [i, position] of positions.entries()) {
        const then = await h.inject({ method: 'GET', url: `/api/templates/${id}?at=${position}` });
        expect(then.statusCode, then.body).toBe(200);
        expect(then.json()).toMatchObject({ id, name: names[i], revision: i + 1, template: 'asof_one' });
        expect(then.headers.etag, 'an earlier state carries no ETag').toBeUndefined();
        const byRevision = await h.inject({ method: 'GET', url: `/api/templates/${id}?revision=${i + 1}` });
        expect(byRevision.json()).toMatchObject({ name: names[i], revision: i + 1 });
      }
      const now = await h.inject({ method: 'GET', url: `/api/templates/${id}` });
      const latest = await h.inject({ method: 'GET', url: `/api/templates/${id}?at=${new Date(Date.now() + 3_600_000).toISOString()}` });
      expect(latest.json()).toEqual(now.json());
    });

    it('answers 404 before the entity existed and 400 naming a malformed point', async () => {
      const before = new Date(new Date(createdAt).getTime() - 1000).toISOString();
      const early = await h.inject({ method: 'GET', url: `/api/templates/${id}?at=${before}` });
      expect(early.statusCode).toBe(404);
      expect(early.json<{ detail: string }>().detail).toContain('did not exist');
      expect((await h.inject({ method: 'GET', url: `/api/templates/${id}?revision=9` })).statusCode).toBe(404);
      for (const query of ['at=yesterday', 'at=2026-11-20', 'revision=0', 'revision=two', `at=${positions[0] ?? ''}&revision=1`]) {
        const bad = await h.inject({ method: 'GET', url: `/api/templates/${id}?${query}` });
        expect(bad.statusCode, query).toBe(400);
        expect(bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual([
          query.startsWith('revision') ? 'revision' : 'at',
        ]);
      }
    });

    it('diffs two revisions over REST and GraphQL', async () => {
      const diff = await h.inject({ method: 'GET', url: `/api/templates/${id}/diff?from=1&to=3` });
      expect(diff.statusCode, diff.body).toBe(200);
      const body = diff.json<{ from: { name: string }; to: { name: string }; changes: unknown[] }>();
      expect(body.from.name).toBe('asof one');
      expect(body.to.name).toBe('asof three');
      expect(body.changes).toEqual([
        { field: 'description', before: '', after: 'renamed twice' },
        { field: 'name', before: 'asof one', after: 'asof three' },
      ]);
      const answered = await graphql(
        'query ($id: UUID!) { revisionDiff(entityType: "template", id: $id, from: 2, to: 3) { changes { field before after } } }',
        { id },
      );
      expect(answered).toEqual({
        data: {
          revisionDiff: {
            changes: [
              { field: 'description', before: 'renamed once', after: 'renamed twice' },
              { field: 'name', before: 'asof two', after: 'asof three' },
            ],
          },
        },
      });
      const never = await graphql(
        'query ($id: UUID!) { revisionDiff(entityType: "template", id: $id, from: 1, to: 7) { changes { field } } }',
        {
          id,
        },
      );
      expect(never.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    });

    it('answers GraphQL `template(id, at:)` and `(id, revision:)` with the same fields as today', async () => {
      const query = `query ($id: UUID!, $at: String, $revision: Int) {
        template(id: $id, at: $at, revision: $revision) { id name description revision creator { identifier } }
      }`;
      const atSecond = await graphql(query, { id, at: positions[1] });
      expect(atSecond).toEqual({
        data: { template: { id, name: 'asof two', description: 'renamed once', revision: 2, creator: { identifier: 'admin' } } },
      });
      const atFirst = await graphql(query, { id, revision: 1 });
      expect(atFirst.data?.template).toMatchObject({ name: 'asof one', revision: 1 });
      expect((await graphql(query, { id, at: '1970-01-01T00:00:00Z' })).data).toEqual({ template: null });
      const bad = await graphql(query, { id, at: 'last tuesday' });
      expect(bad.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    });

    it('reads references as they were: the link lists of the revision asked, the entities they name as now', async () => {
      const parent = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'asof parent', template: 'asof_parent' } });
      const parentId = parent.json<{ id: string }>().id;
      const child = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'asof child', template: 'asof_child', parentIds: [parentId] },
      });
      expect(child.statusCode, child.body).toBe(201);
      const childId = child.json<{ id: string }>().id;
      const detached = await h.inject({ method: 'PATCH', url: `/api/templates/${childId}`, payload: { parentIds: [] } });
      expect(detached.statusCode, detached.body).toBe(200);
      const rest = await h.inject({ method: 'GET', url: `/api/templates/${childId}?revision=1` });
      expect(rest.json()).toMatchObject({ parentIds: [parentId] });
      const query = 'query ($id: UUID!, $r: Int) { template(id: $id, revision: $r) { revision parents { name } } }';
      expect(await graphql(query, { id: childId, r: 1 })).toEqual({
        data: { template: { revision: 1, parents: [{ name: 'asof parent' }] } },
      });
      expect(await graphql(query, { id: childId, r: 2 })).toEqual({ data: { template: { revision: 2, parents: [] } } });
      expect(await graphql(query, { id: childId })).toEqual({ data: { template: { revision: 2, parents: [] } } });
    });

    it('keeps an owned integration’s past from those who may not read it now', async () => {
      const team = await h.inject({ method: 'POST', url: '/api/teams', payload: { name: 'asof owners' } });
      expect(team.statusCode, team.body).toBe(201);
      const integration = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'asof git',
          integrationType: 'git',
          integrationProvider: 'git_public',
          configuration: {},
          ownerId: team.json<{ id: string }>().id,
        },
      });
      expect(integration.statusCode, integration.body).toBe(201);
      const integrationId = integration.json<{ id: string }>().id;
      const reader = await h.serviceAccount('asof-reader', ['default']);
      const asReader = { authorization: `Bearer ${reader}` };
      expect((await h.inject({ method: 'GET', url: `/api/integrations/${integrationId}?revision=1`, headers: asReader })).statusCode).toBe(
        404,
      );
      expect(
        (await h.inject({ method: 'GET', url: `/api/integrations/${integrationId}/diff?from=1&to=1`, headers: asReader })).statusCode,
      ).toBe(404);
      const hidden = await graphql(
        'query ($id: UUID!) { integration(id: $id, revision: 1) { name } revisionDiff(entityType: "integration", id: $id, from: 1, to: 1) { changes { field } } }',
        { id: integrationId },
        reader,
      );
      expect(hidden).toEqual({ data: { integration: null, revisionDiff: null } });
      expect((await h.inject({ method: 'GET', url: `/api/integrations/${integrationId}?revision=1` })).statusCode).toBe(200);
    });
  });
}
