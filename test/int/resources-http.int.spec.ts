import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

interface View {
  id: string;
  name: string;
  state: string;
  status: string;
  abstract: boolean;
  creatorId: string;
  parentIds: string[];
  variables: { name: string; value: unknown; sensitive: boolean }[];
  outputs: Record<string, unknown> | null;
}

const SECRET = 'correct-horse-battery-staple';

for (const target of databaseTargets()) {
  describe(`resources over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let template: string;
    let otherTemplate: string;
    let requester: string;
    let requesterId: string;
    let infra: string;
    let seq = 0;

    const createTemplate = async (slug: string, abstract: boolean): Promise<string> => {
      const response = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: slug, template: slug, abstract } });
      if (response.statusCode !== 201) throw new Error(response.body);
      return response.json<{ id: string }>().id;
    };
    const as = (token: string | undefined) => (token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const create = (payload: Record<string, unknown>, token?: string) =>
      h.inject({ method: 'POST', url: '/api/resources', payload, ...as(token) });
    const act = (id: string, action: string, token?: string, payload: Record<string, unknown> = {}) =>
      h.inject({ method: 'POST', url: `/api/resources/${id}/actions/${action}`, payload, ...as(token) });
    const body = (overrides: Record<string, unknown> = {}) => ({ name: `resource-${++seq}`, templateId: template, ...overrides });
    const expectAt = async (response: Promise<LightMyRequestResponse>, state: string, status: string) => {
      const answered = await response;
      expect(answered.statusCode, answered.body).toBe(200);
      expect(answered.json<View>()).toMatchObject({ state, status });
    };

    beforeAll(async () => {
      h = await openHttpApp(target);
      template = await createTemplate('web_cluster', true);
      otherTemplate = await createTemplate('database', true);
      requester = await h.serviceAccount('requester', ['default']);
      infra = await h.serviceAccount('runner', ['infra']);
      const me = await h.inject({ method: 'GET', url: '/api/users?filter={"identifier":"requester"}' });
      requesterId = me.json<{ id: string }[]>()[0]?.id ?? '';
    });
    afterAll(async () => h.close());

    it('takes a request from approval through a run, a destroy with children first, to deletion', async () => {
      const requested = await create(body({ name: 'parent', variables: [{ name: 'region', value: 'eu-west-1' }] }), requester);
      expect(requested.statusCode, requested.body).toBe(201);
      const parent = requested.json<View>();
      expect(parent).toMatchObject({
        state: 'provision',
        status: 'approval_pending',
        abstract: true,
        creatorId: requesterId,
        outputs: null,
      });
      await expectAt(act(parent.id, 'approve', infra), 'provision', 'ready');
      await expectAt(act(parent.id, 'execute', requester), 'provision', 'queued');
      await expectAt(act(parent.id, 'start', infra), 'provision', 'in_progress');
      const succeeded = await act(parent.id, 'succeed', infra, { outputs: { endpoint: 'https://web.example' } });
      expect(succeeded.json<View>()).toMatchObject({ state: 'provisioned', status: 'done', outputs: { endpoint: 'https://web.example' } });

      const child = (await create(body({ name: 'child', parentIds: [parent.id] }), requester)).json<View>();
      expect(child.parentIds).toEqual([parent.id]);
      const refused = await act(parent.id, 'destroy', requester);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        detail: 'cannot destroy a resource while its children are not destroyed: "child" (provision/approval_pending)',
        children: [{ id: child.id, name: 'child', state: 'provision', status: 'approval_pending' }],
      });
      for (const [action, token] of [
        ['approve', infra],
        ['execute', requester],
        ['start', infra],
        ['succeed', infra],
        ['destroy', requester],
        ['approve', infra],
        ['execute', requester],
        ['start', infra],
        ['succeed', infra],
      ] as const) {
        expect((await act(child.id, action, token)).statusCode).toBe(200);
      }
      expect((await h.inject({ method: 'GET', url: `/api/resources/${child.id}` })).json<View>()).toMatchObject({
        state: 'destroyed',
        status: 'done',
      });

      await expectAt(act(parent.id, 'destroy', requester), 'destroy', 'approval_pending');
      await expectAt(act(parent.id, 'approve', infra), 'destroy', 'ready');
      await expectAt(act(parent.id, 'execute', requester), 'destroy', 'queued');
      await expectAt(act(parent.id, 'start', infra), 'destroy', 'in_progress');
      await expectAt(act(parent.id, 'succeed', infra), 'destroyed', 'done');
      expect((await h.inject({ method: 'DELETE', url: `/api/resources/${child.id}`, ...as(requester) })).statusCode).toBe(204);
      expect((await h.inject({ method: 'DELETE', url: `/api/resources/${parent.id}`, ...as(requester) })).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/resources/${parent.id}` })).statusCode).toBe(404);
    });

    it('takes a change to what was approved as a new request: ready or provisioned, back to approval, execute refused until approved', async () => {
      const patch = (id: string, payload: Record<string, unknown>) =>
        h.inject({ method: 'PATCH', url: `/api/resources/${id}`, payload, ...as(requester) });
      const view = (await create(body({ variables: [{ name: 'size', value: 's' }] }), requester)).json<View>();
      await expectAt(act(view.id, 'approve', infra), 'provision', 'ready');
      // Metadata deploys nothing: it stays approved.
      await expectAt(patch(view.id, { description: 'web tier', labels: ['web'] }), 'provision', 'ready');
      await expectAt(patch(view.id, { variables: [{ name: 'size', value: 'xxl' }] }), 'provision', 'approval_pending');
      const refused = await act(view.id, 'execute', requester);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        currentState: 'provision',
        currentStatus: 'approval_pending',
        allowedActions: ['approve', 'reject', 'delete'],
      });
      // The approver sees what changed since the approval, before → after, and why it waits again.
      const history = await h.inject({
        method: 'GET',
        url: `/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: view.id }))}&sort=["position","ASC"]`,
      });
      const entries = history.json<{ verb: string; diff: { field: string; before?: unknown; after?: unknown }[] }[]>();
      expect(entries.map((entry) => entry.verb)).toEqual(['created', 'approved', 'updated', 'updated', 'approval_requested_again']);
      expect(entries[3]?.diff).toEqual([
        {
          field: 'variables',
          before: [{ name: 'size', value: 's', sensitive: false }],
          after: [{ name: 'size', value: 'xxl', sensitive: false }],
        },
      ]);
      expect(entries[4]?.diff).toEqual([{ field: 'status', before: 'ready', after: 'approval_pending' }]);

      for (const [action, token] of [
        ['approve', infra],
        ['execute', requester],
        ['start', infra],
        ['succeed', infra],
      ] as const) {
        expect((await act(view.id, action, token)).statusCode).toBe(200);
      }
      await expectAt(patch(view.id, { storagePath: 'states/web.tfstate' }), 'provisioned', 'approval_pending');
      expect((await act(view.id, 'execute', requester)).statusCode).toBe(409);
      await expectAt(act(view.id, 'approve', infra), 'provisioned', 'ready');
      await expectAt(act(view.id, 'execute', requester), 'provisioned', 'queued');
      // While the run is queued, what it deploys cannot change under it.
      const underway = await patch(view.id, { variables: [] });
      expect(underway.statusCode).toBe(409);
      expect(underway.json<{ detail: string }>().detail).toBe(
        'cannot change variables of a resource in state provisioned with status queued: wait until the run or request has ended',
      );
    });

    it('rejects a request, after which it may be recreated or deleted', async () => {
      const view = (await create(body(), requester)).json<View>();
      const rejected = await act(view.id, 'reject', infra);
      expect(rejected.json()).toMatchObject({ state: 'provision', status: 'rejected' });
      await expectAt(act(view.id, 'recreate', requester), 'provision', 'approval_pending');
    });

    it('keeps approvals and runner actions from the default role, and other people’s resources from it', async () => {
      const view = (await create(body(), requester)).json<View>();
      const approve = await act(view.id, 'approve', requester);
      expect(approve.statusCode).toBe(403);
      expect(approve.json<{ detail: string }>().detail).toBe('missing permission resource:write');
      const stranger = await h.serviceAccount('stranger', ['default']);
      const foreign = await act(view.id, 'delete', stranger);
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json<{ detail: string }>().detail).toBe('only the creator of a resource or holders of resource:write may delete it');
      const patch = await h.inject({
        method: 'PATCH',
        url: `/api/resources/${view.id}`,
        payload: { description: 'mine now' },
        ...as(stranger),
      });
      expect(patch.statusCode).toBe(403);
      expect(
        (
          await h.inject({ method: 'PATCH', url: `/api/resources/${view.id}`, payload: { description: 'still mine' }, ...as(requester) })
        ).json(),
      ).toMatchObject({ description: 'still mine' });
      await act(view.id, 'approve', infra);
      await act(view.id, 'execute', requester);
      const start = await act(view.id, 'start', requester);
      expect(start.statusCode).toBe(403);
      const humanRunner = await act(view.id, 'start');
      expect(humanRunner.statusCode, 'the super admin is an administrator').toBe(200);
      expect((await h.inject({ method: 'GET', url: `/api/resources/${view.id}`, ...as(stranger) })).statusCode).toBe(200);
    });

    it('refuses an illegal action with 409, the position and the allowed actions', async () => {
      const view = (await create(body(), requester)).json<View>();
      const refused = await act(view.id, 'execute', requester);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        detail: 'cannot execute a resource in state provision with status approval_pending; allowed: approve, reject, delete',
        currentState: 'provision',
        currentStatus: 'approval_pending',
        allowedActions: ['approve', 'reject', 'delete'],
      });
    });

    it('never shows a sensitive variable value, in responses or in stored events', async () => {
      const variables = [
        { name: 'password', value: SECRET, sensitive: true },
        { name: 'region', value: 'eu-west-1', sensitive: false },
      ];
      const created = await create(body({ variables }), requester);
      const view = created.json<View>();
      expect(view.variables).toEqual([
        { name: 'password', value: '********', sensitive: true },
        { name: 'region', value: 'eu-west-1', sensitive: false },
      ]);
      const patched = await h.inject({
        method: 'PATCH',
        url: `/api/resources/${view.id}`,
        payload: { variables: [...view.variables, { name: 'size', value: 3, sensitive: false }] },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const responses = [
        created.body,
        patched.body,
        (await h.inject({ method: 'GET', url: `/api/resources/${view.id}` })).body,
        (await h.inject({ method: 'GET', url: '/api/resources' })).body,
      ];
      for (const text of responses) expect(text).not.toContain(SECRET);
      const { rows } = await h.database.pool.query<{ data: unknown }>('SELECT data FROM events');
      expect(JSON.stringify(rows)).not.toContain(SECRET);
      const unknownMask = await h.inject({
        method: 'PATCH',
        url: `/api/resources/${view.id}`,
        payload: { variables: [{ name: 'token', value: '********', sensitive: true }] },
      });
      expect(unknownMask.statusCode).toBe(400);
      // On create nothing is stored yet: a masked value can stand for nothing.
      const maskedOnCreate = await create(body({ variables: [{ name: 'password', value: '********', sensitive: true }] }), requester);
      expect(maskedOnCreate.statusCode).toBe(400);
      expect(maskedOnCreate.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['variables[0].value']);
    });

    it('keeps names unique per template, case-insensitively', async () => {
      expect((await create(body({ name: 'shared' }))).statusCode).toBe(201);
      const duplicate = await create(body({ name: 'SHARED' }));
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json<{ detail: string }>().detail).toContain('a resource named "SHARED" already exists for this template');
      expect((await create(body({ name: 'shared', templateId: otherTemplate }))).statusCode).toBe(201);
    });

    it('needs a source code version for a concrete template, and refuses a client-set abstract flag', async () => {
      const concrete = await createTemplate('concrete_thing', false);
      const missing = await create(body({ templateId: concrete }));
      expect(missing.statusCode).toBe(422);
      expect(missing.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['sourceCodeVersionId']);
      expect((await create(body({ abstract: false }))).statusCode).toBe(400);
      const noTemplate = await create(body({ templateId: '00000000-0000-4000-8000-000000000000' }));
      expect(noTemplate.statusCode).toBe(422);
      const badParent = await create(body({ parentIds: ['00000000-0000-4000-8000-000000000000'] }));
      expect(badParent.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['parentIds[0]']);
    });
  });

  describe(`resources without the approval flow on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target, { env: { APPROVAL_FLOW: 'false' } });
    });
    afterAll(async () => h.close());

    it('start ready, and destroys go straight to ready', async () => {
      const template = (
        await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Queue', template: 'queue', abstract: true } })
      ).json<{ id: string }>().id;
      const view = (
        await h.inject({ method: 'POST', url: '/api/resources', payload: { name: 'jobs', templateId: template } })
      ).json<View>();
      expect(view).toMatchObject({ state: 'provision', status: 'ready' });
      for (const action of ['execute', 'start', 'succeed']) {
        expect((await h.inject({ method: 'POST', url: `/api/resources/${view.id}/actions/${action}`, payload: {} })).statusCode).toBe(200);
      }
      const destroy = await h.inject({ method: 'POST', url: `/api/resources/${view.id}/actions/destroy`, payload: {} });
      expect(destroy.json()).toMatchObject({ state: 'destroy', status: 'ready' });
    });

    describe('parents and children, in every order', () => {
      let template: string;
      let seq = 0;
      beforeAll(async () => {
        template = (
          await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Lineage', template: 'lineage', abstract: true } })
        ).json<{ id: string }>().id;
      });
      const act = (id: string, action: string) => h.inject({ method: 'POST', url: `/api/resources/${id}/actions/${action}`, payload: {} });
      const run = async (id: string, ...actions: string[]) => {
        for (const action of actions) {
          const answered = await act(id, action);
          expect(answered.statusCode, `${action}: ${answered.body}`).toBe(200);
        }
      };
      const request = async (parentIds: string[] = []) => {
        const response = await h.inject({
          method: 'POST',
          url: '/api/resources',
          payload: { name: `r-${++seq}`, templateId: template, parentIds },
        });
        return response;
      };
      const provisioned = async (parentIds: string[] = []): Promise<string> => {
        const response = await request(parentIds);
        expect(response.statusCode, response.body).toBe(201);
        const id = response.json<View>().id;
        await run(id, 'execute', 'start', 'succeed');
        return id;
      };

      it('refuses a request under a destroyed or destroying parent, naming it', async () => {
        const parent = await provisioned();
        await run(parent, 'destroy');
        const destroying = await request([parent]);
        expect(destroying.statusCode).toBe(422);
        expect(destroying.json<{ errors: unknown }>().errors).toEqual([
          { field: 'parentIds[0]', message: expect.stringMatching(/^parent "r-\d+" is being destroyed$/) as unknown },
        ]);
        await run(parent, 'execute', 'start', 'succeed');
        const destroyed = await request([parent]);
        expect(destroyed.statusCode).toBe(422);
        expect(destroyed.json<{ errors: unknown }>().errors).toEqual([
          { field: 'parentIds[0]', message: expect.stringMatching(/^parent "r-\d+" is destroyed$/) as unknown },
        ]);
      });

      it('refuses to recreate a child whose parent was destroyed after it', async () => {
        const parent = await provisioned();
        const child = await provisioned([parent]);
        await run(child, 'destroy', 'execute', 'start', 'succeed');
        await run(parent, 'destroy', 'execute', 'start', 'succeed');
        const recreated = await act(child, 'recreate');
        expect(recreated.statusCode).toBe(409);
        expect(recreated.json<{ detail: string }>().detail).toMatch(
          /^cannot recreate a resource under a destroyed or destroying parent: "r-\d+" \(destroyed\/done\)$/,
        );
        expect((await h.inject({ method: 'GET', url: `/api/resources/${child}` })).json<View>()).toMatchObject({
          state: 'destroyed',
          status: 'done',
        });
      });

      it('never lets a parent destroy and a child recreate both through when they race', async () => {
        for (let round = 0; round < 6; round++) {
          const parent = await provisioned();
          const child = await provisioned([parent]);
          await run(child, 'destroy', 'execute', 'start', 'succeed');
          const [destroy, recreate] = await Promise.all([act(parent, 'destroy'), act(child, 'recreate')]);
          expect([destroy.statusCode, recreate.statusCode].sort(), `round ${round}`).toEqual([200, 409]);
        }
      });

      it('never lets a parent destroy and a new child request both through when they race', async () => {
        for (let round = 0; round < 6; round++) {
          const parent = await provisioned();
          const [destroy, child] = await Promise.all([act(parent, 'destroy'), request([parent])]);
          const outcomes = [destroy.statusCode, child.statusCode];
          expect(outcomes, `round ${round}: ${destroy.body} ${child.body}`).not.toEqual([200, 201]);
          expect([
            [200, 422],
            [409, 201],
          ]).toContainEqual(outcomes);
        }
      });
    });
  });
}
