import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAggregate } from '../../src/commands/handler.js';
import { secretAggregate } from '../../src/commands/secret.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const VALUE_A = 'custom-secret-value-a-never-shown';
const VALUE_B = 'custom-secret-value-b-never-shown';
const MISSING_ID = '3d4e5f60-7182-4394-a5b6-c7d8e9f0a1b2';

interface View {
  id: string;
  name: string;
  revision: number;
  status: string;
  integrationId: string | null;
  configuration: Record<string, unknown>;
}

interface Problem {
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

const integrationBodies = {
  aws: {
    integrationType: 'cloud',
    integrationProvider: 'aws',
    configuration: { awsAccessKeyId: 'AKIAEXAMPLE', awsSecretAccessKey: 'aws-secret', awsAccount: '123456789012' },
  },
  gcp: { integrationType: 'cloud', integrationProvider: 'gcp', configuration: { gcpProjectId: 'acme', gcpServiceAccountKey: '{"k":1}' } },
  github: { integrationType: 'git', integrationProvider: 'github', configuration: { token: 'ghp_example' } },
} as const;

const fields = (response: LightMyRequestResponse): string[] => (response.json<Problem>().errors ?? []).map((e) => e.field);

for (const target of databaseTargets()) {
  describe(`secrets over HTTP on ${target.name}`, () => {
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
    const create = (body: Record<string, unknown>) => h.inject({ method: 'POST', url: '/api/secrets', payload: body });
    const patch = (id: string, body: Record<string, unknown>) => h.inject({ method: 'PATCH', url: `/api/secrets/${id}`, payload: body });
    const awsSecret = (name: string, integrationId: string | undefined) => ({
      name,
      secretProvider: 'aws',
      integrationId,
      configuration: { name: 'prod/db', awsRegion: 'eu-west-1' },
    });
    const customSecret = (name: string) => ({
      name,
      secretProvider: 'custom',
      configuration: {
        secrets: [
          { name: 'A', value: VALUE_A },
          { name: 'B', value: VALUE_B },
        ],
      },
    });

    it('creates an aws secret on an aws integration, and finds it by provider and integration', async () => {
      const integrationId = await createIntegration('AWS for secrets', 'aws');
      const response = await create(awsSecret('Database password', integrationId));
      expect(response.statusCode, response.body).toBe(201);
      const view = response.json<View>();
      expect(view).toMatchObject({
        name: 'Database password',
        secretProvider: 'aws',
        secretType: 'tofu',
        integrationId,
        status: 'enabled',
        revision: 1,
        description: '',
        labels: [],
      });
      expect(view.configuration).toEqual({ name: 'prod/db', awsRegion: 'eu-west-1' });
      expect((await h.inject({ method: 'GET', url: `/api/secrets/${view.id}` })).json<View>()).toEqual(view);
      const listed = await h.inject({
        method: 'GET',
        url: '/api/secrets',
        query: { filter: JSON.stringify({ secretProvider: 'aws', integrationId }), sort: JSON.stringify(['name', 'ASC']) },
      });
      expect(listed.headers['content-range']).toBe('secrets 0-0/1');
      expect(listed.json<View[]>().map((s) => s.id)).toEqual([view.id]);
    });

    it('never shows custom secret values, stores them encrypted and reads them back decrypted', async () => {
      const response = await create(customSecret('App tokens'));
      expect(response.statusCode, response.body).toBe(201);
      const view = response.json<View>();
      expect(view).toMatchObject({ secretProvider: 'custom', integrationId: null });
      expect(view.configuration).toEqual({
        secrets: [
          { name: 'A', value: '********' },
          { name: 'B', value: '********' },
        ],
      });
      const read = await h.inject({ method: 'GET', url: `/api/secrets/${view.id}` });
      const listed = await h.inject({ method: 'GET', url: '/api/secrets' });
      const audit = await h.inject({ method: 'GET', url: '/api/audit_log', query: { filter: JSON.stringify({ entityType: 'secret' }) } });
      for (const r of [read, listed, audit]) expect(r.statusCode).toBe(200);
      expect(audit.json<{ changes: unknown }[]>().map((entry) => entry.changes)).toContainEqual(
        expect.objectContaining({
          configuration: {
            secrets: [
              { name: 'A', value: '********' },
              { name: 'B', value: '********' },
            ],
          },
        }),
      );
      for (const r of [response, read, listed, audit]) {
        expect(r.body).not.toContain(VALUE_A);
        expect(r.body).not.toContain(VALUE_B);
      }
      const raw = await h.services.pool.query<{ data: unknown }>("SELECT data FROM events WHERE type = 'SecretCreated'");
      expect(JSON.stringify(raw.rows)).not.toContain(VALUE_A);
      const { state } = await loadAggregate(h.services.signIn, secretAggregate, view.id);
      expect(state.status === 'active' && state.fields.configuration).toEqual({
        secrets: [
          { name: 'A', value: VALUE_A },
          { name: 'B', value: VALUE_B },
        ],
      });
    });

    it('keeps a stored value sent back as "********" for a known name, and refuses it for an unknown one', async () => {
      const view = (await create(customSecret('Rotating tokens'))).json<View>();
      const patched = await patch(view.id, {
        configuration: {
          secrets: [
            { name: 'A', value: '********' },
            { name: 'C', value: 'new-value-c' },
          ],
        },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json<View>()).toMatchObject({
        revision: 2,
        configuration: {
          secrets: [
            { name: 'A', value: '********' },
            { name: 'C', value: '********' },
          ],
        },
      });
      expect(patched.body).not.toContain('new-value-c');
      const { state } = await loadAggregate(h.services.signIn, secretAggregate, view.id);
      expect(state.status === 'active' && state.fields.configuration).toEqual({
        secrets: [
          { name: 'A', value: VALUE_A },
          { name: 'C', value: 'new-value-c' },
        ],
      });
      const raw = await h.services.pool.query<{ data: unknown }>("SELECT data FROM events WHERE type = 'SecretUpdated'");
      expect(JSON.stringify(raw.rows)).not.toContain('new-value-c');

      const unknown = await patch(view.id, {
        configuration: {
          secrets: [
            { name: 'A', value: '********' },
            { name: 'Z', value: '********' },
          ],
        },
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json<Problem>().errors).toEqual([
        {
          field: 'configuration.secrets[1].value',
          message: 'is write-only: send the secret itself, not ******** (no stored secret has this name)',
        },
      ]);
      const onCreate = await create({
        ...customSecret('Masked on create'),
        configuration: { secrets: [{ name: 'A', value: '********' }] },
      });
      expect(onCreate.statusCode).toBe(400);
      expect(fields(onCreate)).toEqual(['configuration.secrets[0].value']);
    });

    it('refuses bad configuration naming each field', async () => {
      const integrationId = await createIntegration('AWS for bad config', 'aws');
      const empty = await create({ name: 'Bad', secretProvider: 'aws', integrationId });
      expect(empty.statusCode).toBe(400);
      expect(fields(empty).sort()).toEqual(['configuration.awsRegion', 'configuration.name']);
      const unknownKey = await create({
        ...awsSecret('Bad', integrationId),
        configuration: { name: 'x', awsRegion: 'eu-west-1', gcpRegion: 'x' },
      });
      expect(unknownKey.json<Problem>().errors).toEqual([{ field: 'configuration.gcpRegion', message: 'unknown field' }]);
      const duplicate = await create({
        name: 'Bad',
        secretProvider: 'custom',
        configuration: {
          secrets: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
      });
      expect(duplicate.json<Problem>().errors).toEqual([{ field: 'configuration.secrets[1].name', message: 'duplicate secret name "A"' }]);
      const body = await create({ name: '', secretProvider: 'azure', integrationId: 'nope' });
      expect(fields(body).sort()).toEqual(['integrationId', 'name', 'secretProvider']);
    });

    it('answers 422 naming integrationId for a missing, unknown, disabled or wrong-kind integration', async () => {
      const aws = await createIntegration('AWS to disable', 'aws');
      const gcp = await createIntegration('GCP cloud', 'gcp');
      const github = await createIntegration('GitHub for secrets', 'github');
      const expect422 = (response: LightMyRequestResponse, message: string) => {
        expect(response.statusCode, response.body).toBe(422);
        expect(response.json<Problem>().errors).toEqual([{ field: 'integrationId', message }]);
      };
      expect422(
        await create(awsSecret('No integration', undefined)),
        'integrationId is required for aws secrets (only custom secrets may go without)',
      );
      expect422(await create(awsSecret('Unknown integration', MISSING_ID)), `integration ${MISSING_ID} does not exist`);
      expect422(
        await create(awsSecret('On git', github)),
        `integration ${github} is a git integration of provider github; aws secrets need a cloud integration of provider aws`,
      );
      expect422(
        await create(awsSecret('On gcp', gcp)),
        `integration ${gcp} is a cloud integration of provider gcp; aws secrets need a cloud integration of provider aws`,
      );
      const onGcp = await create({ name: 'GCP secret', secretProvider: 'gcp', integrationId: gcp, configuration: { name: 'db' } });
      expect(onGcp.statusCode, onGcp.body).toBe(201);
      expect422(
        await patch(onGcp.json<View>().id, { integrationId: aws }),
        `integration ${aws} is a cloud integration of provider aws; gcp secrets need a cloud integration of provider gcp`,
      );
      await h.inject({ method: 'POST', url: `/api/integrations/${aws}/actions/disable` });
      expect422(await create(awsSecret('On disabled', aws)), `integration ${aws} is disabled and cannot be newly referenced`);
    });

    it('refuses to delete an integration a secret refers to, naming the secret', async () => {
      const integrationId = await createIntegration('AWS in use', 'aws');
      const secret = (await create(awsSecret('Keeps AWS busy', integrationId))).json<View>();
      const refused = await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` });
      expect(refused.statusCode).toBe(409);
      expect(refused.json<Problem>().detail).toBe('integration is still referenced by secret "Keeps AWS busy"');
      expect((await h.inject({ method: 'DELETE', url: `/api/secrets/${secret.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'DELETE', url: `/api/integrations/${integrationId}` })).statusCode).toBe(204);
    });

    it('refuses a duplicate name (case-insensitive), a provider change and a stale If-Match', async () => {
      const view = (await create(customSecret('Unique secret'))).json<View>();
      const duplicate = await create(customSecret('UNIQUE SECRET'));
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json<Problem>().errors).toEqual([{ field: 'name', message: 'a secret named "UNIQUE SECRET" already exists' }]);
      const change = await patch(view.id, { secretProvider: 'aws' });
      expect(change.statusCode).toBe(422);
      expect(fields(change)).toEqual(['secretProvider']);
      const stale = await h.inject({
        method: 'PATCH',
        url: `/api/secrets/${view.id}`,
        headers: { 'if-match': '"7"' },
        payload: { description: 'x' },
      });
      expect(stale.statusCode).toBe(412);
    });

    it('disables, enables and deletes; a deleted one is gone and its name free', async () => {
      const view = (await create(customSecret('Short-lived secret'))).json<View>();
      expect((await h.inject({ method: 'POST', url: `/api/secrets/${view.id}/actions/disable` })).json<View>().status).toBe('disabled');
      expect((await h.inject({ method: 'POST', url: `/api/secrets/${view.id}/actions/enable` })).json<View>().status).toBe('enabled');
      expect((await h.inject({ method: 'DELETE', url: `/api/secrets/${view.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/secrets/${view.id}` })).statusCode).toBe(404);
      expect((await create(customSecret('Short-lived secret'))).statusCode).toBe(201);
    });

    it('lets a default role read but not write', async () => {
      const reader = await h.serviceAccount('secret-reader', ['default']);
      const headers = { authorization: `Bearer ${reader}` };
      const view = (await create(customSecret('Readable secret'))).json<View>();
      expect((await h.inject({ method: 'GET', url: '/api/secrets', headers })).statusCode).toBe(200);
      expect((await h.inject({ method: 'GET', url: `/api/secrets/${view.id}`, headers })).statusCode).toBe(200);
      for (const request of [
        { method: 'POST' as const, url: '/api/secrets', payload: awsSecret('Nope', MISSING_ID) },
        { method: 'PATCH' as const, url: `/api/secrets/${view.id}`, payload: { description: 'nope' } },
        { method: 'DELETE' as const, url: `/api/secrets/${view.id}` },
      ]) {
        const refused = await h.inject({ ...request, headers });
        expect(refused.statusCode).toBe(403);
        expect(refused.json<Problem>().detail).toBe('missing permission secret:write');
      }
    });
  });
}
