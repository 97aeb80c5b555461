import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

// The attack audit's M1: a default user could name another's resource as the parent of its own
// request (then blocking that resource's destroy), and reference any secret or integration it could
// see. A caller may now name as parent only what it may act on, and reference only what it may read.

interface View {
  readonly id: string;
  readonly parentIds: readonly string[];
  readonly state: string;
  readonly status: string;
}

interface Problem {
  readonly code: string;
  readonly detail: string;
  readonly errors?: readonly { field: string; message: string }[];
}

for (const target of databaseTargets()) {
  describe(`M1: references on a resource request, over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let owner: string;
    let other: string;
    let infra: string;
    /** A caller who may request resources from templates but read nothing else (grants resource:read, template:read). */
    let narrow: string;
    let templateId: string;
    let secretId: string;
    let integrationId: string;
    /** The owner's provisioned resource: the parent others try to name. */
    let parent: View;
    let seq = 0;

    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const request = (token: string, fields: Record<string, unknown> = {}) =>
      h.app.inject({ method: 'POST', url: '/api/resources', payload: { name: `m1-${++seq}`, templateId, ...fields }, ...as(token) });
    const patch = (token: string, id: string, fields: Record<string, unknown>) =>
      h.app.inject({ method: 'PATCH', url: `/api/resources/${id}`, payload: fields, ...as(token) });
    const act = (token: string, id: string, action: string, payload: Record<string, unknown> = {}) =>
      h.app.inject({ method: 'POST', url: `/api/resources/${id}/actions/${action}`, payload, ...as(token) });
    const created = (response: LightMyRequestResponse): View => {
      expect(response.statusCode, response.body).toBe(201);
      return response.json<View>();
    };
    function expectForbidden(response: LightMyRequestResponse, errors: readonly { field: string; message: string | RegExp }[]): void {
      expect(response.statusCode, response.body).toBe(403);
      const problem = response.json<Problem>();
      expect(problem.code).toBe('FORBIDDEN');
      expect(problem.detail).toBe(`may not reference: ${errors.map((e) => e.field).join(', ')}`);
      expect(problem.errors?.map((e) => e.field)).toEqual(errors.map((e) => e.field));
      for (const [i, expected] of errors.entries()) {
        if (typeof expected.message === 'string') expect(problem.errors?.[i]?.message).toBe(expected.message);
        else expect(problem.errors?.[i]?.message).toMatch(expected.message);
      }
    }
    const notYours = (id: string): string =>
      `resource ${id} is not yours: a parent must be a resource you may act on (yours, or any with resource:write)`;

    beforeAll(async () => {
      h = await openHttpApp(target);
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'M1 stack', template: 'm1_stack', abstract: true },
      });
      templateId = template.json<{ id: string }>().id;
      const secret = await h.inject({
        method: 'POST',
        url: '/api/secrets',
        payload: { name: 'm1-secret', secretProvider: 'custom', configuration: { secrets: [{ name: 'k', value: 'v' }] } },
      });
      expect(secret.statusCode, secret.body).toBe(201);
      secretId = secret.json<{ id: string }>().id;
      const integration = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: { name: 'm1-git', integrationType: 'git', integrationProvider: 'git_public', configuration: {} },
      });
      expect(integration.statusCode, integration.body).toBe(201);
      integrationId = integration.json<{ id: string }>().id;
      owner = await h.serviceAccount('m1-owner', ['default']);
      other = await h.serviceAccount('m1-other', ['default']);
      infra = await h.serviceAccount('m1-infra', ['infra']);
      narrow = await h.serviceAccount('m1-narrow', [], ['resource:read', 'template:read']);

      parent = created(await request(owner));
      for (const [token, action] of [
        [infra, 'approve'],
        [owner, 'execute'],
        [infra, 'start'],
        [infra, 'succeed'],
      ] as const) {
        expect((await act(token, parent.id, action)).statusCode).toBe(200);
      }
    });
    afterAll(async () => h.close());

    it("refuses a default user naming another's resource as parent (403 naming the field), and leaves its destroy free", async () => {
      const own = created(await request(other));
      expectForbidden(await request(other, { parentIds: [own.id, parent.id] }), [{ field: 'parentIds[1]', message: notYours(parent.id) }]);
      const listed = await h.inject({
        method: 'GET',
        url: `/api/resources?filter=${encodeURIComponent(JSON.stringify({ parentId: parent.id }))}`,
      });
      expect(listed.json<View[]>()).toEqual([]);
    });

    it('lets the owner name its own resource, and infra any resource', async () => {
      expect(created(await request(owner, { parentIds: [parent.id] })).parentIds).toEqual([parent.id]);
      const byInfra = created(await request(infra, { parentIds: [parent.id] }));
      expect(byInfra.parentIds).toEqual([parent.id]);
      // Cleaned up for the destroy test below: the creator deletes its request.
      expect((await h.app.inject({ method: 'DELETE', url: `/api/resources/${byInfra.id}`, ...as(infra) })).statusCode).toBe(204);
    });

    it("checks only what a change adds: a parent set by someone allowed stays, another's cannot be added", async () => {
      const mine = created(await request(other));
      const second = created(await request(other));
      expectForbidden(await patch(other, mine.id, { parentIds: [parent.id] }), [{ field: 'parentIds[0]', message: notYours(parent.id) }]);
      // infra (resource:write) may attach it; the owner of the request may then edit it freely.
      expect((await patch(infra, mine.id, { parentIds: [parent.id] })).statusCode).toBe(200);
      expect((await patch(other, mine.id, { labels: ['edited'] })).statusCode).toBe(200);
      const kept = await patch(other, mine.id, { parentIds: [parent.id, second.id] });
      expect(kept.statusCode, kept.body).toBe(200);
      expect(kept.json<View>().parentIds).toEqual([parent.id, second.id]);
      // Dropping a reference needs no right over it.
      expect((await patch(other, mine.id, { parentIds: [second.id] })).json<View>().parentIds).toEqual([second.id]);
    });

    it('refuses secrets and integrations to a caller who may not read them, naming each field', async () => {
      expectForbidden(await request(narrow, { secretIds: [secretId], integrationIds: [integrationId] }), [
        { field: 'integrationIds[0]', message: 'missing permission integration:read: only what you may read can be referenced' },
        { field: 'secretIds[0]', message: 'missing permission secret:read: only what you may read can be referenced' },
      ]);
      // A default user reads both, so may reference them.
      expect(created(await request(other, { secretIds: [secretId], integrationIds: [integrationId] })).id).toBeTruthy();
    });

    it('refuses the same through the GraphQL mutation, with the fields in extensions', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/graphql',
        ...as(other),
        payload: {
          query: 'mutation ($input: ResourceCreateInput!) { createResource(input: $input) { id } }',
          variables: { input: { name: 'm1-graphql', templateId, parentIds: [parent.id] } },
        },
      });
      const body = response.json<{
        data: unknown;
        errors: { message: string; extensions: { code: string; errors: { field: string }[] } }[];
      }>();
      expect(body.errors[0]?.extensions.code).toBe('FORBIDDEN');
      expect(body.errors[0]?.extensions.errors.map((e) => e.field)).toEqual(['parentIds[0]']);
    });

    it("decision: a child someone else owns blocks its parent's destroy until it is gone (only those allowed can make one)", async () => {
      const child = created(await request(infra, { parentIds: [parent.id] }));
      const refused = await act(owner, parent.id, 'destroy');
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json<{ children: { id: string }[] }>().children.map((c) => c.id)).toContain(child.id);
      expect((await h.app.inject({ method: 'DELETE', url: `/api/resources/${child.id}`, ...as(infra) })).statusCode).toBe(204);
      // The owner's own child (from the test above) still blocks; the owner removes it, then destroys.
      const own = await h.inject({
        method: 'GET',
        url: `/api/resources?filter=${encodeURIComponent(JSON.stringify({ parentId: parent.id }))}`,
      });
      for (const remaining of own.json<View[]>())
        expect((await h.app.inject({ method: 'DELETE', url: `/api/resources/${remaining.id}`, ...as(owner) })).statusCode).toBe(204);
      expect((await act(owner, parent.id, 'destroy')).statusCode).toBe(200);
    });
  });
}
