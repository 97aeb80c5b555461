import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldIssue } from '../../src/errors.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Body = Record<string, unknown>;
type View = Body & { id: string; revision: number; status: string; identifier: string };
interface Problem {
  detail: string;
  errors?: FieldIssue[];
  referrers?: { type: string; id: string; field: string; name: string }[];
}

/** Asserts the status and returns the problem body. */
function problem(response: LightMyRequestResponse, status: number): Problem {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return response.json<Problem>();
}

const fieldsOf = (p: Problem): string[] => (p.errors ?? []).map((e) => e.field).sort();

// Names, slugs and repositories are unique per database; a counter keeps every test's data apart.
let counter = 0;
const next = (): number => ++counter;

for (const target of databaseTargets()) {
  describe(`source codes and their versions over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const post = (plural: string, payload: Body) => h.inject({ method: 'POST', url: `/api/${plural}`, payload });
    const created = async (plural: string, payload: Body): Promise<View> => {
      const response = await post(plural, payload);
      expect(response.statusCode, response.body).toBe(201);
      return response.json<View>();
    };
    const patch = (plural: string, id: string, payload: Body, headers: Record<string, string> = {}) =>
      h.inject({ method: 'PATCH', url: `/api/${plural}/${id}`, payload, headers });
    const action = (plural: string, id: string, name: string) => h.inject({ method: 'POST', url: `/api/${plural}/${id}/actions/${name}` });
    const remove = (plural: string, id: string) => h.inject({ method: 'DELETE', url: `/api/${plural}/${id}` });
    const get = (plural: string, id: string) => h.inject({ method: 'GET', url: `/api/${plural}/${id}` });
    const list = (plural: string, filter: Body) =>
      h.inject({ method: 'GET', url: `/api/${plural}`, query: { filter: JSON.stringify(filter) } });

    const template = async (): Promise<View> => {
      const n = next();
      return created('templates', { name: `Template ${n}`, template: `template_${n}` });
    };
    const integration = (overrides: Body = {}): Promise<View> =>
      created('integrations', {
        name: `Git ${next()}`,
        integrationType: 'git',
        integrationProvider: 'github',
        configuration: { token: 'x' },
        ...overrides,
      });
    const repository = (): string => `https://github.com/acme/modules-${next()}`;
    const sourceCode = (overrides: Body = {}): Promise<View> =>
      created('source_codes', { sourceCodeUrl: repository(), sourceCodeProvider: 'github', ...overrides });
    const versionBody = (templateId: string, sourceCodeId: string, overrides: Body = {}): Body => ({
      templateId,
      sourceCodeId,
      sourceCodeFolder: 'modules/vpc',
      sourceCodeVersion: 'v1.0.0',
      ...overrides,
    });

    describe('source codes', () => {
      it('are created, read, listed, patched (If-Match), disabled, enabled and deleted', async () => {
        const git = await integration();
        const url = repository();
        const view = await created('source_codes', {
          sourceCodeUrl: url,
          sourceCodeProvider: 'github',
          integrationId: git.id.toUpperCase(),
          description: 'modules',
        });
        expect(view).toMatchObject({
          sourceCodeUrl: url,
          identifier: url,
          sourceCodeProvider: 'github',
          sourceCodeLanguage: 'opentofu',
          gitTags: [],
          gitBranches: [],
          integrationId: git.id,
          description: 'modules',
          labels: [],
          status: 'enabled',
          revision: 1,
        });
        expect((await get('source_codes', view.id)).json<View>()).toEqual(view);
        const listed = await list('source_codes', { integrationId: git.id });
        expect(listed.headers['content-range']).toBe('source_codes 0-0/1');
        expect(listed.json<View[]>().map((v) => v.id)).toEqual([view.id]);

        const moved = `${url}-moved`;
        const patched = await patch('source_codes', view.id, { sourceCodeUrl: moved, gitTags: ['v1.0.0'] }, { 'if-match': '"1"' });
        expect(patched.statusCode, patched.body).toBe(200);
        expect(patched.json<View>()).toMatchObject({ sourceCodeUrl: moved, identifier: moved, gitTags: ['v1.0.0'], revision: 2 });
        expect(problem(await patch('source_codes', view.id, { gitBranches: ['main'] }, { 'if-match': '"1"' }), 412).detail).toBe(
          'revision 1 is stale: the source_code is at revision 2',
        );
        expect(problem(await patch('source_codes', view.id, { sourceCodeProvider: 'gitlab' }), 422).detail).toBe(
          'sourceCodeProvider is immutable (it is "github")',
        );
        expect(problem(await patch('source_codes', view.id, { identifier: 'other' }), 422).errors).toEqual([
          { field: 'identifier', message: `identifier is derived from sourceCodeUrl and must equal it ("${moved}")` },
        ]);

        expect((await action('source_codes', view.id, 'disable')).json<View>().status).toBe('disabled');
        expect((await action('source_codes', view.id, 'enable')).json<View>().status).toBe('enabled');
        expect((await remove('source_codes', view.id)).statusCode).toBe(204);
        expect((await get('source_codes', view.id)).statusCode).toBe(404);
        expect((await post('source_codes', { sourceCodeUrl: moved, sourceCodeProvider: 'github' })).statusCode).toBe(201);
      });

      it('refuses a duplicate URL differing only in the case of its host or a trailing .git', async () => {
        const n = next();
        await sourceCode({ sourceCodeUrl: `https://github.com/acme/dup-${n}` });
        for (const spelling of [
          `https://GitHub.COM/acme/dup-${n}`,
          `https://github.com/acme/dup-${n}.git`,
          `HTTPS://github.com/acme/dup-${n}/`,
        ]) {
          const refused = problem(await post('source_codes', { sourceCodeUrl: spelling, sourceCodeProvider: 'github' }), 409);
          expect(refused.errors).toEqual([{ field: 'sourceCodeUrl', message: `a source code with the URL "${spelling}" already exists` }]);
        }
      });

      it('refuses an integration that is not a git integration for its provider, naming integrationId', async () => {
        const gitlab = await integration({ integrationProvider: 'gitlab' });
        const mismatch = problem(
          await post('source_codes', { sourceCodeUrl: repository(), sourceCodeProvider: 'github', integrationId: gitlab.id }),
          422,
        );
        expect(mismatch.errors).toEqual([
          {
            field: 'integrationId',
            message:
              `integration ${gitlab.id} is a git integration of provider gitlab; github source codes need a git integration of ` +
              `provider github`,
          },
        ]);

        const github = await integration();
        const view = await sourceCode({ sourceCodeUrl: repository() });
        expect(problem(await patch('source_codes', view.id, { integrationId: gitlab.id }), 422).errors?.[0]?.field).toBe('integrationId');
        expect((await patch('source_codes', view.id, { integrationId: github.id })).json<View>().integrationId).toBe(github.id);
        expect(problem(await remove('integrations', github.id), 409).detail).toBe(
          `integration is still referenced by source_code "${view.identifier}"`,
        );

        const publicOne = problem(
          await post('source_codes', { sourceCodeUrl: repository(), sourceCodeProvider: 'git_public', integrationId: github.id }),
          422,
        );
        expect(publicOne.errors).toEqual([{ field: 'integrationId', message: 'a git_public source code takes no integration' }]);
        const missing = '00000000-0000-4000-8000-000000000000';
        expect(
          problem(await post('source_codes', { sourceCodeUrl: repository(), sourceCodeProvider: 'github', integrationId: missing }), 422)
            .errors,
        ).toEqual([{ field: 'integrationId', message: `integration ${missing} does not exist` }]);
      });

      it('refuses a malformed body naming each field', async () => {
        const refused = problem(
          await post('source_codes', { sourceCodeUrl: 'github.com/acme', sourceCodeProvider: 'svn', gitTags: ['bad tag'], extra: 1 }),
          400,
        );
        expect(fieldsOf(refused)).toEqual(['extra', 'gitTags[0]', 'sourceCodeProvider', 'sourceCodeUrl']);
        expect(refused.errors?.find((e) => e.field === 'sourceCodeUrl')?.message).toBe(
          'must be an http(s), ssh or git URL of a repository, or user@host:path',
        );
        expect(
          (await post('source_codes', { sourceCodeUrl: `git@github.com:acme/scp-${next()}.git`, sourceCodeProvider: 'git_public' }))
            .statusCode,
        ).toBe(201);
      });
    });

    describe('source code versions', () => {
      it('are created with a derived identifier and defaults, read, patched, disabled, enabled and deleted', async () => {
        const [t, sc] = [await template(), await sourceCode()];
        const view = await created('source_code_versions', {
          ...versionBody(t.id, sc.id, { sourceCodeFolder: './modules//vpc/' }),
          variables: [{ name: 'cidr', default: '10.0.0.0/16' }],
          outputs: [{ name: 'vpc_id', sensitive: true }],
        });
        expect(view).toMatchObject({
          sourceCodeVersion: 'v1.0.0',
          sourceCodeBranch: null,
          sourceCodeFolder: 'modules/vpc',
          identifier: 'modules/vpc:v1.0.0',
          variables: [{ name: 'cidr', type: 'string', required: false, default: '10.0.0.0/16', description: '', sensitive: false }],
          outputs: [{ name: 'vpc_id', description: '', sensitive: true }],
          lifecycleState: 'preview',
          templateId: t.id,
          sourceCodeId: sc.id,
          status: 'enabled',
          revision: 1,
        });
        expect((await get('source_code_versions', view.id)).json<View>()).toEqual(view);

        const switched = await patch(
          'source_code_versions',
          view.id,
          { sourceCodeVersion: null, sourceCodeBranch: 'main', lifecycleState: 'active' },
          { 'if-match': '"1"' },
        );
        expect(switched.json<View>()).toMatchObject({
          sourceCodeVersion: null,
          sourceCodeBranch: 'main',
          identifier: 'modules/vpc:main',
          lifecycleState: 'active',
          revision: 2,
        });
        expect(problem(await patch('source_code_versions', view.id, { templateId: sc.id }), 422).detail).toBe(
          `templateId is immutable (it is "${t.id}")`,
        );

        expect((await action('source_code_versions', view.id, 'disable')).json<View>().status).toBe('disabled');
        expect((await action('source_code_versions', view.id, 'enable')).json<View>().status).toBe('enabled');
        expect((await remove('source_code_versions', view.id)).statusCode).toBe(204);
        expect((await get('source_code_versions', view.id)).statusCode).toBe(404);
      });

      it('refuses both a tag and a branch, or neither, naming both', async () => {
        const [t, sc] = [await template(), await sourceCode()];
        const both = problem(await post('source_code_versions', versionBody(t.id, sc.id, { sourceCodeBranch: 'main' })), 422);
        expect(fieldsOf(both)).toEqual(['sourceCodeBranch', 'sourceCodeVersion']);
        const neither = problem(await post('source_code_versions', versionBody(t.id, sc.id, { sourceCodeVersion: null })), 422);
        expect(fieldsOf(neither)).toEqual(['sourceCodeBranch', 'sourceCodeVersion']);
        const view = await created('source_code_versions', versionBody(t.id, sc.id));
        expect(fieldsOf(problem(await patch('source_code_versions', view.id, { sourceCodeBranch: 'main' }), 422))).toEqual([
          'sourceCodeBranch',
          'sourceCodeVersion',
        ]);
      });

      it('refuses a missing or disabled template or source code, naming the field', async () => {
        const [t, sc] = [await template(), await sourceCode()];
        const missing = '00000000-0000-4000-8000-000000000001';
        expect(problem(await post('source_code_versions', versionBody(missing, missing)), 422).errors).toEqual([
          { field: 'templateId', message: `template ${missing} does not exist` },
          { field: 'sourceCodeId', message: `source_code ${missing} does not exist` },
        ]);
        await action('templates', t.id, 'disable');
        await action('source_codes', sc.id, 'disable');
        expect(problem(await post('source_code_versions', versionBody(t.id, sc.id)), 422).errors).toEqual([
          { field: 'templateId', message: `template ${t.id} is disabled and cannot be newly referenced` },
          { field: 'sourceCodeId', message: `source_code ${sc.id} is disabled and cannot be newly referenced` },
        ]);
      });

      it('refuses a duplicate identifier within one source code, not across source codes', async () => {
        const [t, sc, other] = [await template(), await sourceCode(), await sourceCode()];
        await created('source_code_versions', versionBody(t.id, sc.id));
        const refused = problem(await post('source_code_versions', versionBody(t.id, sc.id, { sourceCodeFolder: 'modules/vpc/' })), 409);
        expect(refused.errors).toEqual([
          { field: 'identifier', message: `source code ${sc.id} already has a version "modules/vpc:v1.0.0"` },
        ]);
        await created('source_code_versions', versionBody(t.id, other.id));
      });

      it('keeps a referenced source code and template from being deleted, naming the version', async () => {
        const [t, sc] = [await template(), await sourceCode()];
        const view = await created('source_code_versions', versionBody(t.id, sc.id, { sourceCodeFolder: 'kept' }));
        const sourceCodeRefused = problem(await remove('source_codes', sc.id), 409);
        expect(sourceCodeRefused.detail).toBe('source_code is still referenced by source_code_version "kept:v1.0.0"');
        expect(sourceCodeRefused.referrers).toEqual([
          { type: 'source_code_version', id: view.id, field: 'sourceCodeId', name: 'kept:v1.0.0' },
        ]);
        expect(problem(await remove('templates', t.id), 409).detail).toBe(
          'template is still referenced by source_code_version "kept:v1.0.0"',
        );
        expect((await remove('source_code_versions', view.id)).statusCode).toBe(204);
        expect((await remove('source_codes', sc.id)).statusCode).toBe(204);
        expect((await remove('templates', t.id)).statusCode).toBe(204);
      });

      it('lists the versions of a template and of a source code', async () => {
        const [t1, t2, sc] = [await template(), await template(), await sourceCode()];
        const a = await created('source_code_versions', versionBody(t1.id, sc.id, { sourceCodeFolder: 'a' }));
        const b = await created('source_code_versions', versionBody(t1.id, sc.id, { sourceCodeFolder: 'b' }));
        const c = await created('source_code_versions', versionBody(t2.id, sc.id, { sourceCodeFolder: 'c' }));
        const ofTemplate = await h.inject({
          method: 'GET',
          url: '/api/source_code_versions',
          query: { filter: JSON.stringify({ templateId: t1.id }), sort: JSON.stringify(['identifier', 'ASC']) },
        });
        expect(ofTemplate.headers['content-range']).toBe('source_code_versions 0-1/2');
        expect(ofTemplate.json<View[]>().map((v) => v.id)).toEqual([a.id, b.id]);
        const ofSourceCode = await list('source_code_versions', { sourceCodeId: sc.id });
        expect(
          ofSourceCode
            .json<View[]>()
            .map((v) => v.id)
            .sort(),
        ).toEqual([a.id, b.id, c.id].sort());
        expect((await list('source_code_versions', { template_id: t2.id })).json<View[]>().map((v) => v.id)).toEqual([c.id]);
      });

      it('refuses malformed folders, variables and outputs naming each field', async () => {
        const [t, sc] = [await template(), await sourceCode()];
        const refused = problem(
          await post('source_code_versions', {
            ...versionBody(t.id, sc.id, { sourceCodeFolder: 'modules/../secrets' }),
            variables: [{ name: 'region' }, { name: 'region' }, { name: '1bad' }],
            outputs: [{ name: 'id', value: 1 }],
            lifecycleState: 'retired',
          }),
          400,
        );
        expect(refused.errors).toEqual(
          expect.arrayContaining([
            { field: 'sourceCodeFolder', message: 'must not contain ..' },
            { field: 'variables[1].name', message: 'duplicate name "region"' },
            { field: 'outputs[0].value', message: 'unknown field' },
          ]),
        );
        expect(fieldsOf(refused)).toEqual([
          'lifecycleState',
          'outputs[0].value',
          'sourceCodeFolder',
          'variables[1].name',
          'variables[2].name',
        ]);
        expect(problem(await post('source_code_versions', versionBody(t.id, sc.id, { sourceCodeFolder: '/abs' })), 400).errors).toEqual([
          { field: 'sourceCodeFolder', message: 'must be a path relative to the repository root' },
        ]);
      });
    });

    it('lets a default role read both but write neither', async () => {
      const reader = await h.serviceAccount(`source-code-reader-${target.name}`, ['default']);
      const headers = { authorization: `Bearer ${reader}` };
      for (const [plural, resource] of [
        ['source_codes', 'source_code'],
        ['source_code_versions', 'source_code_version'],
      ] as const) {
        expect((await h.inject({ method: 'GET', url: `/api/${plural}`, headers })).statusCode).toBe(200);
        const refused = await h.inject({
          method: 'POST',
          url: `/api/${plural}`,
          headers,
          payload: { sourceCodeUrl: repository(), sourceCodeProvider: 'github' },
        });
        expect(problem(refused, 403).detail).toBe(`missing permission ${resource}:write`);
      }
    });
  });
}
