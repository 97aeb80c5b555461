import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

interface View {
  id: string;
  name: string;
  state: string;
  status: string;
  revision: number;
  lastError: string | null;
}

for (const target of databaseTargets()) {
  describe(`storages over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let awsIntegration: string;
    let gitIntegration: string;
    let seq = 0;
    beforeAll(async () => {
      h = await openHttpApp(target);
      const aws = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'State AWS',
          integrationType: 'cloud',
          integrationProvider: 'aws',
          configuration: { awsAccessKeyId: 'AKIA', awsSecretAccessKey: 's', awsAccount: '1' },
        },
      });
      awsIntegration = aws.json<{ id: string }>().id;
      const git = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: { name: 'Git', integrationType: 'git', integrationProvider: 'github', configuration: {} },
      });
      gitIntegration = git.json<{ id: string }>().id;
    });
    afterAll(async () => h.close());

    const body = (overrides: Record<string, unknown> = {}) => ({
      name: `state-${++seq}`,
      storageProvider: 'aws',
      integrationId: awsIntegration,
      configuration: { awsBucketName: 'tf-state', awsRegion: 'eu-west-1' },
      ...overrides,
    });
    const create = (payload: Record<string, unknown>) => h.inject({ method: 'POST', url: '/api/storages', payload });
    const act = (id: string, action: string, payload?: Record<string, unknown>, token?: string) =>
      h.inject({
        method: 'POST',
        url: `/api/storages/${id}/actions/${action}`,
        payload: payload ?? {},
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });

    it('goes through provision, run, destroy and delete, each transition visible at once', async () => {
      const created = await create(body());
      expect(created.statusCode, created.body).toBe(201);
      const view = created.json<View>();
      expect(view).toMatchObject({ state: 'provision', status: 'ready', storageType: 'tofu', integrationId: awsIntegration });
      const runner = await h.serviceAccount(`runner-${seq}`, ['infra']);
      const steps: [string, Record<string, unknown> | undefined, string, string][] = [
        ['execute', undefined, 'provision', 'queued'],
        ['start', undefined, 'provision', 'in_progress'],
        ['succeed', { outputs: { bucket: 'tf-state' } }, 'provisioned', 'done'],
        ['destroy', undefined, 'destroy', 'ready'],
        ['execute', undefined, 'destroy', 'queued'],
        ['start', undefined, 'destroy', 'in_progress'],
        ['succeed', {}, 'destroyed', 'done'],
      ];
      for (const [action, payload, state, status] of steps) {
        const response = await act(view.id, action, payload, runner);
        expect(response.statusCode, `${action}: ${response.body}`).toBe(200);
        expect(response.json<View>()).toMatchObject({ state, status });
      }
      expect((await h.inject({ method: 'DELETE', url: `/api/storages/${view.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/storages/${view.id}` })).statusCode).toBe(404);
    });

    it('records a failure, and runs again from error', async () => {
      const view = (await create(body())).json<View>();
      await act(view.id, 'execute');
      await act(view.id, 'start');
      const failed = await act(view.id, 'fail', { error: 'bucket not reachable' });
      expect(failed.json<View>()).toMatchObject({ state: 'provision', status: 'error', lastError: 'bucket not reachable' });
      expect((await act(view.id, 'execute')).json<View>()).toMatchObject({ status: 'queued' });
    });

    it('refuses an illegal action with 409, the position and the allowed actions', async () => {
      const view = (await create(body())).json<View>();
      const refused = await act(view.id, 'succeed');
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        detail: 'cannot succeed a storage in state provision with status ready; allowed: execute, delete',
        status: 409,
        currentState: 'provision',
        currentStatus: 'ready',
        allowedActions: ['execute', 'delete'],
      });
      expect((await act(view.id, 'approve')).json<{ allowedActions: string[] }>().allowedActions).toEqual(['execute', 'delete']);
      expect((await act(view.id, 'explode')).statusCode).toBe(400);
    });

    it('keeps runner actions for service accounts and administrators, and writes for writers', async () => {
      const view = (await create(body())).json<View>();
      await act(view.id, 'execute');
      const reader = await h.serviceAccount(`reader-${seq}`, ['default']);
      const refused = await act(view.id, 'start', undefined, reader);
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ detail: string }>().detail).toBe('missing permission storage:write');
      expect(
        (
          await create({ ...body(), name: 'nope' }).then(() =>
            h.inject({ method: 'POST', url: '/api/storages', payload: body(), headers: { authorization: `Bearer ${reader}` } }),
          )
        ).statusCode,
      ).toBe(403);
    });

    it('validates configuration and the integration it stores through', async () => {
      const bad = await create(body({ configuration: { awsBucketName: 'x' } }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['configuration.awsRegion']);
      const wrongKind = await create(body({ integrationId: gitIntegration }));
      expect(wrongKind.statusCode).toBe(422);
      expect(wrongKind.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
        {
          field: 'integrationId',
          message:
            `integration ${gitIntegration} is a git integration of provider github; aws storages need a cloud integration of ` +
            `provider aws`,
        },
      ]);
      const missing = await create(body({ integrationId: '00000000-0000-4000-8000-000000000000' }));
      expect(missing.statusCode).toBe(422);
    });

    it('refuses to delete an integration a storage stores through, naming the storage', async () => {
      const integration = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'Busy AWS',
          integrationType: 'cloud',
          integrationProvider: 'aws',
          configuration: { awsAccessKeyId: 'AKIA', awsSecretAccessKey: 's', awsAccount: '1' },
        },
      });
      const integrationId = integration.json<{ id: string }>().id;
      const storage = (await create(body({ integrationId, name: 'busy-state' }))).json<View>();
      const refused = await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` });
      expect(refused.statusCode).toBe(409);
      expect(refused.json<{ detail: string }>().detail).toBe('integration is still referenced by storage "busy-state"');
      expect((await h.inject({ method: 'DELETE', url: `/api/storages/${storage.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` })).statusCode).toBe(204);
    });
  });
}
