import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAggregate } from '../../src/commands/handler.js';
import { integrationAggregate } from '../../src/commands/integration.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const SECRET = 'aws-secret-value-that-must-never-show';
const awsBody = (name: string) => ({
  name,
  integrationType: 'cloud',
  integrationProvider: 'aws',
  configuration: { awsAccessKeyId: 'AKIAEXAMPLE', awsSecretAccessKey: SECRET, awsAccount: '123456789012', awsDefaultRegion: 'eu-west-1' },
});

interface View {
  id: string;
  name: string;
  revision: number;
  status: string;
  configuration: Record<string, unknown>;
}

for (const target of databaseTargets()) {
  describe(`integrations over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const create = (body: unknown) => h.inject({ method: 'POST', url: '/api/integrations', payload: body as Record<string, unknown> });

    it('creates one with its secret masked in every answer, and stores the secret encrypted', async () => {
      const response = await create(awsBody('Prod AWS'));
      expect(response.statusCode, response.body).toBe(201);
      const view = response.json<View>();
      expect(view).toMatchObject({
        name: 'Prod AWS',
        integrationType: 'cloud',
        integrationProvider: 'aws',
        status: 'enabled',
        revision: 1,
      });
      expect(view.configuration).toEqual({
        awsAccessKeyId: 'AKIAEXAMPLE',
        awsSecretAccessKey: '********',
        awsAccount: '123456789012',
        awsDefaultRegion: 'eu-west-1',
      });
      const read = await h.inject({ method: 'GET', url: `/api/integrations/${view.id}` });
      const listed = await h.inject({
        method: 'GET',
        url: '/api/integrations',
        query: { filter: JSON.stringify({ integrationProvider: 'aws' }) },
      });
      expect(listed.headers['content-range']).toBe('integrations 0-0/1');
      const audit = await h.inject({
        method: 'GET',
        url: '/api/audit_log',
        query: { filter: JSON.stringify({ entityType: 'integration' }) },
      });
      for (const r of [response, read, listed, audit]) expect(r.body).not.toContain(SECRET);
      const raw = await h.services.pool.query<{ data: unknown }>("SELECT data FROM events WHERE type = 'IntegrationCreated'");
      expect(JSON.stringify(raw.rows)).not.toContain(SECRET);
      const { state } = await loadAggregate(h.services.signIn, integrationAggregate, view.id);
      expect(state.status === 'active' && state.fields.configuration.awsSecretAccessKey).toBe(SECRET);
    });

    it('keeps the stored secret when "********" is sent back, and refuses it on create', async () => {
      const view = (await create(awsBody('Keep secret'))).json<View>();
      const patched = await h.inject({
        method: 'PATCH',
        url: `/api/integrations/${view.id}`,
        headers: { 'if-match': '"1"' },
        payload: { configuration: { ...view.configuration, awsDefaultRegion: 'us-east-1' } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json<View>()).toMatchObject({
        revision: 2,
        configuration: { awsDefaultRegion: 'us-east-1', awsSecretAccessKey: '********' },
      });
      const { state } = await loadAggregate(h.services.signIn, integrationAggregate, view.id);
      expect(state.status === 'active' && state.fields.configuration.awsSecretAccessKey).toBe(SECRET);
      const masked = await create({
        ...awsBody('Masked'),
        configuration: { ...awsBody('x').configuration, awsSecretAccessKey: '********' },
      });
      expect(masked.statusCode).toBe(400);
      expect(masked.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['configuration.awsSecretAccessKey']);
    });

    it('refuses bad input naming each field', async () => {
      const unknownKey = await create({ ...awsBody('Bad'), configuration: { ...awsBody('x').configuration, extra: 1 } });
      expect(unknownKey.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
        { field: 'configuration.extra', message: 'unknown field' },
      ]);
      const mismatch = await create({ ...awsBody('Bad'), integrationType: 'git' });
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
        {
          field: 'integrationProvider',
          message: 'must be one of github, gitlab, bitbucket, azure_devops, git_public for integrationType git',
        },
      ]);
      const missing = await create({ name: 'Bad', integrationType: 'cloud', integrationProvider: 'gcp', configuration: {} });
      expect(
        missing
          .json<{ errors: { field: string }[] }>()
          .errors.map((e) => e.field)
          .sort(),
      ).toEqual(['configuration.gcpProjectId', 'configuration.gcpServiceAccountKey']);
    });

    it('refuses a duplicate name (case-insensitive) and a provider change', async () => {
      const view = (await create(awsBody('Unique one'))).json<View>();
      expect((await create(awsBody('UNIQUE ONE'))).statusCode).toBe(409);
      const change = await h.inject({ method: 'PATCH', url: `/api/integrations/${view.id}`, payload: { integrationProvider: 'gcp' } });
      expect(change.statusCode).toBe(422);
    });

    it('disables, enables and deletes; a deleted one is gone and its name free', async () => {
      const view = (await create(awsBody('Short lived'))).json<View>();
      expect((await h.inject({ method: 'POST', url: `/api/integrations/${view.id}/actions/disable` })).json<View>().status).toBe(
        'disabled',
      );
      expect((await h.inject({ method: 'POST', url: `/api/integrations/${view.id}/actions/enable` })).json<View>().status).toBe('enabled');
      expect((await h.inject({ method: 'DELETE', url: `/api/integrations/${view.id}` })).statusCode).toBe(204);
      expect((await h.inject({ method: 'GET', url: `/api/integrations/${view.id}` })).statusCode).toBe(404);
      expect((await create(awsBody('Short lived'))).statusCode).toBe(201);
    });

    it('lets a default role read but not write', async () => {
      const reader = await h.serviceAccount('integration-reader', ['default']);
      expect((await h.inject({ method: 'GET', url: '/api/integrations', headers: { authorization: `Bearer ${reader}` } })).statusCode).toBe(
        200,
      );
      const refused = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        headers: { authorization: `Bearer ${reader}` },
        payload: awsBody('Nope'),
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ detail: string }>().detail).toBe('missing permission integration:write');
    });
  });
}
