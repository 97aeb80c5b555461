import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import type { UpstreamTreeNode } from '../../src/read/trees.js';

/**
 * The upstream project's REST dialect, as its Backstage plugin calls it (docs/contract.md §12):
 * updates sent with PUT, a resource's tree in its shape, a version's variables started from parent
 * resources' outputs, and refusals read from `message` and `error_code`.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const target of databaseTargets()) {
  describe(`the upstream's REST routes on ${target.name}`, () => {
    let h: HttpHarness;
    const ids: Record<string, string> = {};

    const post = async (plural: string, payload: Record<string, unknown>): Promise<string> => {
      const created = await h.inject({ method: 'POST', url: `/api/${plural}`, payload });
      expect(created.statusCode, created.body).toBe(201);
      return created.json<{ id: string }>().id;
    };
    /** An infra account approves: nobody approves their own request (docs/contract.md §6). */
    let approver: string;
    const act = async (id: string, action: string, payload: Record<string, unknown> = {}) => {
      const headers = action === 'approve' ? { authorization: `Bearer ${approver}` } : {};
      const answered = await h.inject({ method: 'POST', url: `/api/resources/${id}/actions/${action}`, payload, headers });
      expect(answered.statusCode, answered.body).toBe(200);
    };

    beforeAll(async () => {
      h = await openHttpApp(target);
      approver = await h.serviceAccount('upstream-approver', ['infra']);
      ids.sourceCode = await post('source_codes', {
        sourceCodeUrl: 'https://git.example.test/infra.git',
        sourceCodeProvider: 'git_public',
      });
      ids.database = await post('templates', { name: 'Database', template: 'database' });
      ids.app = await post('templates', { name: 'App', template: 'app', parentIds: [ids.database] });
      ids.databaseVersion = await post('source_code_versions', {
        templateId: ids.database,
        sourceCodeId: ids.sourceCode,
        sourceCodeFolder: 'database',
        sourceCodeVersion: 'v1.0.0',
        outputs: [{ name: 'endpoint' }, { name: 'password', sensitive: true }],
      });
      ids.appVersion = await post('source_code_versions', {
        templateId: ids.app,
        sourceCodeId: ids.sourceCode,
        sourceCodeFolder: 'app',
        sourceCodeVersion: 'v1.0.0',
        variables: [
          { name: 'endpoint', type: 'string', required: true, description: 'Where the database answers' },
          { name: 'password', type: 'string', sensitive: true },
          { name: 'region', type: 'enum', default: 'us', validation: { values: ['eu', 'us'] } },
          { name: 'replicas', type: 'number', default: 2 },
        ],
      });
      ids.db = await post('resources', { name: 'orders-db', templateId: ids.database, sourceCodeVersionId: ids.databaseVersion });
      await act(ids.db, 'approve');
      await act(ids.db, 'execute');
      await act(ids.db, 'start');
      await act(ids.db, 'succeed', { outputs: { endpoint: 'db.internal:5432', password: 'not-for-forms', region: 'eu' } });
      ids.service = await post('resources', {
        name: 'orders',
        templateId: ids.app,
        sourceCodeVersionId: ids.appVersion,
        parentIds: [ids.db],
        variables: [{ name: 'endpoint', value: 'db.internal:5432' }],
      });
    });
    afterAll(async () => h.close());

    it('updates with PUT as with PATCH, only the fields sent', async () => {
      const put = await h.inject({ method: 'PUT', url: `/api/templates/${ids.app}`, payload: { description: 'Services on the cluster' } });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toMatchObject({ id: ids.app, name: 'App', description: 'Services on the cluster', parentIds: [ids.database] });
      const version = await h.inject({ method: 'PUT', url: `/api/source_code_versions/${ids.appVersion}`, payload: { index: 3 } });
      expect(version.json()).toMatchObject({ index: 3, identifier: 'app:v1.0.0' });
    });

    it('says every refusal under message and error_code too, as the upstream’s clients read it', async () => {
      const refused = await h.inject({ method: 'PUT', url: `/api/templates/${ids.app}`, payload: { name: '' } });
      expect(refused.statusCode).toBe(400);
      const problem = refused.json<Record<string, unknown>>();
      expect(problem).toMatchObject({ code: 'VALIDATION', error_code: 'VALIDATION', errors: [expect.objectContaining({ field: 'name' })] });
      expect(problem.message).toBe(problem.detail);
      const missing = await h.inject({ method: 'GET', url: '/api/templates/00000000-0000-4000-8000-000000000000' });
      expect(missing.json()).toMatchObject({ status: 404, error_code: 'NOT_FOUND', message: 'template not found' });
    });

    it("answers a resource's tree in the upstream's shape beside ours, its next level under children either way", async () => {
      const down = await h.inject({ method: 'GET', url: `/api/resources/${ids.db}/tree/children` });
      expect(down.statusCode, down.body).toBe(200);
      const tree = down.json<UpstreamTreeNode & { root: { templateName: string; children: { name: string }[] } }>();
      expect(tree).toMatchObject({ id: ids.db, name: 'orders-db', state: 'provisioned', status: 'done', template_name: 'Database' });
      expect(tree.children).toEqual([
        {
          id: ids.service,
          node_id: expect.stringMatching(UUID) as unknown,
          name: 'orders',
          state: 'provision',
          status: 'approval_pending',
          template_name: 'App',
          children: [],
        },
      ]);
      expect(tree.node_id).not.toBe(tree.id);
      // Ours, unchanged beside it.
      expect(tree.root).toMatchObject({ id: ids.db, templateName: 'Database', children: [{ name: 'orders' }] });
      const up = (await h.inject({ method: 'GET', url: `/api/resources/${ids.service}/tree/parents` })).json<UpstreamTreeNode>();
      expect(up.children.map((node) => [node.name, node.template_name])).toEqual([['orders-db', 'Database']]);
      // Who may read resources but not templates is not told the templates' names.
      const reader = await h.serviceAccount('resource-reader', [], ['resource:read']);
      const unnamed = await h.inject({
        method: 'GET',
        url: `/api/resources/${ids.db}/tree/children`,
        headers: { authorization: `Bearer ${reader}` },
      });
      expect(unnamed.json()).toMatchObject({
        template_name: null,
        root: { templateName: null, children: [{ name: 'orders', templateName: null }] },
        children: [{ name: 'orders', template_name: null }],
      });
      const templates = (await h.inject({ method: 'GET', url: `/api/templates/${ids.database}/tree/children` })).json<UpstreamTreeNode>();
      expect(templates).toMatchObject({ name: 'Database', template_name: null, children: [{ name: 'App', state: null, children: [] }] });
    });

    it("starts a version's variables from the parents' outputs, never copying one its parent declares sensitive", async () => {
      const url = `/api/source_code_versions/${ids.appVersion}/variables`;
      const started = await h.inject({ method: 'GET', url: `${url}?parent_resources=${ids.db}` });
      expect(started.statusCode, started.body).toBe(200);
      expect(started.json()).toEqual([
        expect.objectContaining({ name: 'endpoint', index: 0, required: true, value: 'db.internal:5432', valueFrom: ids.db }),
        expect.objectContaining({ name: 'password', index: 1, sensitive: true, value: null, valueFrom: null }),
        expect.objectContaining({ name: 'region', index: 2, type: 'enum', options: ['eu', 'us'], value: 'eu', valueFrom: ids.db }),
        expect.objectContaining({ name: 'replicas', index: 3, options: [], value: 2, valueFrom: null }),
      ]);
      const alone = await h.inject({ method: 'GET', url });
      expect(alone.json<{ value: unknown }[]>().map((variable) => variable.value)).toEqual([null, null, 'us', 2]);
      // The upstream's "none".
      const none = await h.inject({ method: 'GET', url: `${url}?parent_resources="[]"` });
      expect(none.json<{ value: unknown }[]>().map((variable) => variable.value)).toEqual([null, null, 'us', 2]);
    });

    it('refuses a parent that is no resource, an id that is none, and a version that does not exist, naming each', async () => {
      const url = `/api/source_code_versions/${ids.appVersion}/variables`;
      const stranger = '00000000-0000-4000-8000-000000000001';
      const unknown = await h.inject({ method: 'GET', url: `${url}?parent_resources=${ids.db},${stranger}` });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json()).toMatchObject({
        code: 'INVALID_REFERENCE',
        errors: [{ field: 'parent_resources', message: `no resource ${stranger}` }],
      });
      const malformed = await h.inject({ method: 'GET', url: `${url}?parent_resources=not-an-id` });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ code: 'VALIDATION', errors: [{ field: 'parent_resources[0]', message: 'must be a UUID' }] });
      const gone = await h.inject({ method: 'GET', url: `/api/source_code_versions/${stranger}/variables` });
      expect(gone.statusCode).toBe(404);
    });
  });
}
