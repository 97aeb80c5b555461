import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const MISSING_ID = '3d4e5f60-7182-4394-a5b6-c7d8e9f0a1b2';

interface View {
  id: string;
  name: string;
  revision: number;
  status: string;
  integrationId: string;
  configuration: Record<string, unknown>;
}

interface Problem {
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

const integrationBodies = {
  github: { integrationType: 'git', integrationProvider: 'github', configuration: { token: 'ghp_example' } },
  bitbucket: { integrationType: 'git', integrationProvider: 'bitbucket', configuration: { token: 'bb_example' } },
  aws: {
    integrationType: 'cloud',
    integrationProvider: 'aws',
    configuration: { awsAccessKeyId: 'AKIAEXAMPLE', awsSecretAccessKey: 'aws-secret', awsAccount: '123456789012' },
  },
} as const;

const fields = (response: LightMyRequestResponse): string[] => (response.json<Problem>().errors ?? []).map((e) => e.field);

for (const target of databaseTargets()) {
  describe(`workspaces over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const createIntegration = async (name: string, kind: keyof typeof integrationBodies): Promise<string> => {
      const response = await h.inject({ method: 'POST', url: '/api/integrations', payload: { name, ...integrationBodies[kind] } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<View>().id;
    };
    const create = (body: Record<string, unknown>) => h.inject({ method: 'POST', url: '/api/workspaces', payload: body });
    const patch = (id: string, body: Record<string, unknown>) => h.inject({ method: 'PATCH', url: `/api/workspaces/${id}`, payload: body });
    const workspace = (name: string, integrationId: string | undefined, provider = 'github') => ({
      name,
      workspaceProvider: provider,
      integrationId,
      configuration: { url: 'https://github.com/acme' },
    });

    it('creates one on a github integration with the default branch, and finds it by integration', async () => {
      const integrationId = await createIntegration('GitHub for workspaces', 'github');
      const response = await create({ ...workspace('Platform', integrationId), labels: ['team:platform'] });
      expect(response.statusCode, response.body).toBe(201);
      const view = response.json<View>();
      expect(view).toMatchObject({
        name: 'Platform',
        workspaceProvider: 'github',
        integrationId,
        status: 'enabled',
        revision: 1,
        labels: ['team:platform'],
      });
      expect(view.configuration).toEqual({ url: 'https://github.com/acme', defaultBranch: 'main' });
      expect((await h.inject({ method: 'GET', url: `/api/workspaces/${view.id}` })).json<View>()).toEqual(view);
      const listed = await h.inject({
        method: 'GET',
        url: '/api/workspaces',
        query: { filter: JSON.stringify({ integrationId, workspaceProvider: 'github' }), sort: JSON.stringify(['name', 'asc']) },
      });
      expect(listed.headers['content-range']).toBe('workspaces 0-0/1');
      expect(listed.json<View[]>().map((w) => w.id)).toEqual([view.id]);
    });

    it('updates its configuration and description, answering the new revision', async () => {
      const integrationId = await createIntegration('GitHub for updates', 'github');
      const view = (await create(workspace('Updatable', integrationId))).json<View>();
      const patched = await h.inject({
        method: 'PATCH',
        url: `/api/workspaces/${view.id}`,
        headers: { 'if-match': '"1"' },
        payload: { description: 'moved', configuration: { url: 'https://github.com/acme-next', defaultBranch: 'trunk' } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json<View>()).toMatchObject({
        revision: 2,
        description: 'moved',
        configuration: { url: 'https://github.com/acme-next', defaultBranch: 'trunk' },
      });
      const stale = await h.inject({
        method: 'PATCH',
        url: `/api/workspaces/${view.id}`,
        headers: { 'if-match': '"1"' },
        payload: { description: 'again' },
      });
      expect(stale.statusCode).toBe(412);
    });

    it('refuses bad input naming each field', async () => {
      const integrationId = await createIntegration('GitHub for bad input', 'github');
      const noConfiguration = await create({ name: 'Bad', workspaceProvider: 'github', integrationId });
      expect(noConfiguration.statusCode).toBe(400);
      expect(fields(noConfiguration)).toEqual(['configuration.url']);
      const badUrl = await create({ ...workspace('Bad', integrationId), configuration: { url: 'ftp://example.com', extra: 1 } });
      expect(badUrl.json<Problem>().errors).toEqual([
        { field: 'configuration.url', message: 'must be an http(s) URL' },
        { field: 'configuration.extra', message: 'unknown field' },
      ]);
      const body = await create({ name: ' ', workspaceProvider: 'gitlab' });
      expect(fields(body).sort()).toEqual(['configuration.url', 'integrationId', 'name', 'workspaceProvider']);
    });

    it('answers 422 naming integrationId for an unknown, disabled or wrong-kind integration', async () => {
      const github = await createIntegration('GitHub to disable', 'github');
      const bitbucket = await createIntegration('Bitbucket', 'bitbucket');
      const aws = await createIntegration('AWS not git', 'aws');
      const expect422 = (response: LightMyRequestResponse, message: string) => {
        expect(response.statusCode, response.body).toBe(422);
        expect(response.json<Problem>().errors).toEqual([{ field: 'integrationId', message }]);
      };
      expect422(await create(workspace('Unknown', MISSING_ID)), `integration ${MISSING_ID} does not exist`);
      expect422(
        await create(workspace('On bitbucket', bitbucket)),
        `integration ${bitbucket} is a git integration of provider bitbucket; github workspaces need a git integration of provider github`,
      );
      expect422(
        await create(workspace('On aws', aws)),
        `integration ${aws} is a cloud integration of provider aws; github workspaces need a git integration of provider github`,
      );
      const onBitbucket = await create(workspace('Bitbucket workspace', bitbucket, 'bitbucket'));
      expect(onBitbucket.statusCode, onBitbucket.body).toBe(201);
      expect422(
        await patch(onBitbucket.json<View>().id, { integrationId: github }),
        `integration ${github} is a git integration of provider github; bitbucket workspaces need a git integration of provider bitbucket`,
      );
      await h.inject({ method: 'POST', url: `/api/integrations/${github}/actions/disable` });
      expect422(await create(workspace('On disabled', github)), `integration ${github} is disabled and cannot be newly referenced`);
    });

    it('refuses to delete an integration a workspace refers to, naming the workspace', async () => {
      const integrationId = await createIntegration('GitHub in use', 'github');
      const view = (await create(workspace('Keeps GitHub busy', integrationId))).json<View>();
      const refused = await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` });
      expect(refused.statusCode).toBe(409);
      expect(refused.json<Problem>().detail).toBe('integration is still referenced by workspace "Keeps GitHub busy"');
      expect((await h.inject({ method: 'DELETE', url: `/api/workspaces/${view.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` })).statusCode).toBe(204);
    });

    it('keeps names unique per integration (case-insensitive), and refuses a provider change', async () => {
      const first = await createIntegration('GitHub one', 'github');
      const second = await createIntegration('GitHub two', 'github');
      const view = (await create(workspace('Shared name', first))).json<View>();
      const duplicate = await create(workspace('SHARED NAME', first));
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json<Problem>().errors).toEqual([
        { field: 'name', message: `a workspace named "SHARED NAME" already exists for integration ${first}` },
      ]);
      expect((await create(workspace('Shared name', second))).statusCode).toBe(201);
      const change = await patch(view.id, { workspaceProvider: 'bitbucket' });
      expect(change.statusCode).toBe(422);
      expect(fields(change)).toEqual(['workspaceProvider']);
    });

    it('disables, enables and deletes; a deleted one is gone and its name free', async () => {
      const integrationId = await createIntegration('GitHub for lifecycle', 'github');
      const view = (await create(workspace('Short-lived', integrationId))).json<View>();
      expect((await h.inject({ method: 'POST', url: `/api/workspaces/${view.id}/actions/disable` })).json<View>().status).toBe('disabled');
      expect((await h.inject({ method: 'POST', url: `/api/workspaces/${view.id}/actions/enable` })).json<View>().status).toBe('enabled');
      expect((await h.inject({ method: 'DELETE', url: `/api/workspaces/${view.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/workspaces/${view.id}` })).statusCode).toBe(404);
      expect((await create(workspace('Short-lived', integrationId))).statusCode).toBe(201);
    });

    it('lets a default role read but not write', async () => {
      const integrationId = await createIntegration('GitHub for readers', 'github');
      const reader = await h.serviceAccount('workspace-reader', ['default']);
      const headers = { authorization: `Bearer ${reader}` };
      const view = (await create(workspace('Readable', integrationId))).json<View>();
      expect((await h.inject({ method: 'GET', url: '/api/workspaces', headers })).statusCode).toBe(200);
      expect((await h.inject({ method: 'GET', url: `/api/workspaces/${view.id}`, headers })).statusCode).toBe(200);
      for (const request of [
        { method: 'POST' as const, url: '/api/workspaces', payload: workspace('Nope', MISSING_ID) },
        { method: 'PATCH' as const, url: `/api/workspaces/${view.id}`, payload: { integrationId: MISSING_ID } },
        { method: 'POST' as const, url: `/api/workspaces/${view.id}/actions/disable` },
      ]) {
        const refused = await h.inject({ ...request, headers });
        expect(refused.statusCode).toBe(403);
        expect(refused.json<Problem>().detail).toBe('missing permission workspace:write');
      }
    });
  });
}
