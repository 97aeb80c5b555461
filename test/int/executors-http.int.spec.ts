import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

interface View {
  id: string;
  name: string;
  state: string;
  status: string;
  revision: number;
  integrationIds: string[];
  secretIds: string[];
}

const MISSING = '00000000-0000-4000-8000-000000000000';

for (const target of databaseTargets()) {
  describe(`executors over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let seq = 0;
    let gitIntegration: string;
    let awsIntegration: string;
    let sourceCode: string;
    let storage: string;
    let secret: string;

    const post = async (url: string, payload: Record<string, unknown>): Promise<string> => {
      const response = await h.inject({ method: 'POST', url, payload });
      if (response.statusCode !== 201) throw new Error(`POST ${url} failed: ${response.body}`);
      return response.json<{ id: string }>().id;
    };
    const newStorage = () =>
      post('/api/storages', {
        name: `state-${++seq}`,
        storageProvider: 'aws',
        integrationId: awsIntegration,
        configuration: { awsBucketName: 'tf-state', awsRegion: 'eu-west-1' },
      });
    const newSecret = () =>
      post('/api/secrets', { name: `secret-${++seq}`, secretProvider: 'custom', configuration: { secrets: [{ name: 'a', value: 'b' }] } });

    beforeAll(async () => {
      h = await openHttpApp(target);
      gitIntegration = await post('/api/integrations', {
        name: 'Git',
        integrationType: 'git',
        integrationProvider: 'github',
        configuration: {},
      });
      awsIntegration = await post('/api/integrations', {
        name: 'AWS',
        integrationType: 'cloud',
        integrationProvider: 'aws',
        configuration: { awsAccessKeyId: 'AKIA', awsSecretAccessKey: 's', awsAccount: '1' },
      });
      sourceCode = await post('/api/source_codes', {
        sourceCodeUrl: 'https://github.com/acme/infra',
        sourceCodeProvider: 'github',
        integrationId: gitIntegration,
      });
      storage = await newStorage();
      secret = await newSecret();
    });
    afterAll(async () => h.close());

    const body = (overrides: Record<string, unknown> = {}) => ({ name: `executor-${++seq}`, sourceCodeId: sourceCode, ...overrides });
    const create = (payload: Record<string, unknown>, token?: string) =>
      h.inject({ method: 'POST', url: '/api/executors', payload, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });
    const act = (id: string, action: string, payload?: Record<string, unknown>) =>
      h.inject({ method: 'POST', url: `/api/executors/${id}/actions/${action}`, payload: payload ?? {} });
    const remove = (url: string) => h.inject({ method: 'DELETE', url });

    it('creates an executor with its relations, the lists in the order given, and the defaults filled in', async () => {
      const otherSecret = await newSecret();
      const created = await create(
        body({
          name: 'EU runner',
          storageId: storage,
          integrationIds: [awsIntegration, gitIntegration],
          secretIds: [otherSecret, secret],
          sourceCodeBranch: 'main',
        }),
      );
      expect(created.statusCode, created.body).toBe(201);
      const view = created.json<View>();
      expect(view).toMatchObject({
        name: 'EU runner',
        runtime: 'tofu',
        commandArgs: '',
        sourceCodeVersion: null,
        sourceCodeBranch: 'main',
        sourceCodeFolder: '.',
        storagePath: '',
        sourceCodeId: sourceCode,
        storageId: storage,
        integrationIds: [awsIntegration, gitIntegration],
        secretIds: [otherSecret, secret],
        state: 'provision',
        status: 'ready',
        description: '',
        labels: [],
      });
      const read = await h.inject({ method: 'GET', url: `/api/executors/${view.id}` });
      expect(read.json<View>()).toMatchObject({ integrationIds: [awsIntegration, gitIntegration], secretIds: [otherSecret, secret] });

      const patched = await h.inject({
        method: 'PATCH',
        url: `/api/executors/${view.id}`,
        payload: { integrationIds: [gitIntegration], runtime: 'terraform' },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json<View>()).toMatchObject({
        integrationIds: [gitIntegration],
        secretIds: [otherSecret, secret],
        runtime: 'terraform',
      });
    });

    it('lists executors by their link filters, runtime and storage', async () => {
      const linkedSecret = await newSecret();
      const view = (
        await create(body({ runtime: 'terraform', storageId: storage, secretIds: [linkedSecret], integrationIds: [awsIntegration] }))
      ).json<View>();
      const list = (filter: Record<string, unknown>) =>
        h.inject({ method: 'GET', url: `/api/executors?filter=${encodeURIComponent(JSON.stringify(filter))}` });
      const bySecret = await list({ secretId: linkedSecret });
      expect(bySecret.statusCode, bySecret.body).toBe(200);
      expect(bySecret.json<View[]>().map((e) => e.id)).toEqual([view.id]);
      expect(bySecret.headers['content-range']).toBe('executors 0-0/1');
      const byAll = await list({
        integrationId: awsIntegration,
        runtime: 'terraform',
        storageId: storage,
        sourceCodeId: sourceCode,
        state: 'provision',
        status: 'ready',
        name: view.name,
      });
      expect(byAll.json<View[]>().map((e) => e.id)).toEqual([view.id]);
      expect((await list({ secretId: MISSING })).json<View[]>()).toEqual([]);
      expect((await list({ runtime: 'ansible' })).statusCode).toBe(400);
    });

    it('refuses a missing list entry with 422 naming its index', async () => {
      const refused = await create(body({ integrationIds: [awsIntegration, MISSING] }));
      expect(refused.statusCode).toBe(422);
      expect(refused.json<{ errors: unknown[] }>().errors).toEqual([
        { field: 'integrationIds[1]', message: `integration ${MISSING} does not exist` },
      ]);
    });

    it('refuses a tag together with a branch with 422 naming both, and a folder that climbs out with 400', async () => {
      const both = await create(body({ sourceCodeVersion: 'v1.0.0', sourceCodeBranch: 'main' }));
      expect(both.statusCode).toBe(422);
      expect(both.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['sourceCodeVersion', 'sourceCodeBranch']);
      const climbing = await create(body({ sourceCodeFolder: 'modules/../..' }));
      expect(climbing.statusCode).toBe(400);
      expect(climbing.json<{ errors: unknown[] }>().errors).toEqual([{ field: 'sourceCodeFolder', message: 'must not contain ..' }]);
      const missing = await create({ name: `executor-${++seq}` });
      expect(missing.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['sourceCodeId']);
    });

    it('goes through provision, run, destroy and delete, and refuses an illegal action with 409', async () => {
      const view = (await create(body())).json<View>();
      const illegal = await act(view.id, 'destroy');
      expect(illegal.statusCode).toBe(409);
      expect(illegal.json()).toMatchObject({
        detail: 'cannot destroy an executor in state provision with status ready; allowed: execute, delete',
        currentState: 'provision',
        currentStatus: 'ready',
        allowedActions: ['execute', 'delete'],
      });
      const steps: [string, Record<string, unknown> | undefined, string, string][] = [
        ['execute', undefined, 'provision', 'queued'],
        ['start', undefined, 'provision', 'in_progress'],
        ['fail', { error: 'plan failed' }, 'provision', 'error'],
        ['execute', undefined, 'provision', 'queued'],
        ['start', undefined, 'provision', 'in_progress'],
        ['succeed', {}, 'provisioned', 'done'],
        ['destroy', undefined, 'destroy', 'ready'],
        ['execute', undefined, 'destroy', 'queued'],
        ['start', undefined, 'destroy', 'in_progress'],
        ['succeed', {}, 'destroyed', 'done'],
        ['recreate', undefined, 'provision', 'ready'],
      ];
      for (const [action, payload, state, status] of steps) {
        const response = await act(view.id, action, payload);
        expect(response.statusCode, `${action}: ${response.body}`).toBe(200);
        expect(response.json<View>()).toMatchObject({ state, status });
      }
      expect((await remove(`/api/executors/${view.id}`)).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/executors/${view.id}` })).statusCode).toBe(404);
    });

    it('refuses to delete a storage or a secret an executor uses, naming the executor, until it lets go', async () => {
      const busyStorage = await newStorage();
      const busySecret = await newSecret();
      const view = (await create(body({ name: 'busy-executor', storageId: busyStorage, secretIds: [busySecret] }))).json<View>();
      const storageRefused = await remove(`/api/storages/${busyStorage}`);
      expect(storageRefused.statusCode).toBe(409);
      expect(storageRefused.json<{ detail: string }>().detail).toBe('storage is still referenced by executor "busy-executor"');
      const secretRefused = await remove(`/api/secrets/${busySecret}`);
      expect(secretRefused.statusCode).toBe(409);
      expect(secretRefused.json<{ detail: string }>().detail).toBe('secret is still referenced by executor "busy-executor"');

      const released = await h.inject({ method: 'PATCH', url: `/api/executors/${view.id}`, payload: { storageId: null, secretIds: [] } });
      expect(released.json<View>()).toMatchObject({ storageId: null, secretIds: [] });
      expect((await remove(`/api/storages/${busyStorage}`)).statusCode).toBe(204);
      expect((await remove(`/api/secrets/${busySecret}`)).statusCode).toBe(204);
    });

    it('can be referenced by a template, and is not deleted while the template points at it', async () => {
      const view = (await create(body({ name: 'template-executor' }))).json<View>();
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: `Web app ${++seq}`, template: `web_app_${seq}`, executorIds: [view.id] },
      });
      expect(template.statusCode, template.body).toBe(201);
      const templateId = template.json<{ id: string }>().id;
      const refused = await remove(`/api/executors/${view.id}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json<{ detail: string }>().detail).toBe(`executor is still referenced by template "Web app ${seq}"`);
      expect((await remove(`/api/templates/${templateId}`)).statusCode).toBe(204);
      expect((await remove(`/api/executors/${view.id}`)).statusCode).toBe(204);
    });

    it('refuses a second executor of the same name, whatever its case, with 409', async () => {
      expect((await create(body({ name: 'Shared Runner' }))).statusCode).toBe(201);
      const duplicate = await create(body({ name: 'shared runner' }));
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json<{ errors: unknown[] }>().errors).toEqual([
        { field: 'name', message: 'an executor named "shared runner" already exists' },
      ]);
    });

    it('lets a default caller read executors but not write them', async () => {
      const view = (await create(body())).json<View>();
      const reader = await h.serviceAccount(`reader-${++seq}`, ['default']);
      const headers = { authorization: `Bearer ${reader}` };
      expect((await h.inject({ method: 'GET', url: `/api/executors/${view.id}`, headers })).statusCode).toBe(200);
      const refused = await create(body(), reader);
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ detail: string }>().detail).toBe('missing permission executor:write');
      expect(
        (await h.inject({ method: 'PATCH', url: `/api/executors/${view.id}`, payload: { commandArgs: '-x' }, headers })).statusCode,
      ).toBe(403);
      expect((await h.inject({ method: 'POST', url: `/api/executors/${view.id}/actions/execute`, payload: {}, headers })).statusCode).toBe(
        403,
      );
      expect((await h.inject({ method: 'DELETE', url: `/api/executors/${view.id}`, headers })).statusCode).toBe(403);
    });
  });
}
