import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUTATION_ENTITIES } from '../../src/graphql/mutations.js';
import { writesOf } from '../../src/edge/writes/registry.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

interface GraphError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly extensions: Json;
}
interface GraphBody {
  readonly data?: Json | null;
  readonly errors?: readonly GraphError[];
}

/**
 * GraphQL mutations over HTTP: every REST write has its mutation, on the same write operations
 * (src/edge/writes), so the same rules, errors and audit entries follow.
 */
for (const target of databaseTargets()) {
  describe(`GraphQL mutations on ${target.name}`, () => {
    let harness: HttpHarness;
    let developer: string;

    const gql = async (query: string, variables: Json = {}, token: string | null = harness.adminToken): Promise<GraphBody> => {
      const response = await harness.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
        payload: { query, variables },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<GraphBody>();
    };
    const data = async (query: string, variables: Json = {}, token?: string | null): Promise<Json> => {
      const body = await gql(query, variables, token);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data as Json;
    };
    const errorOf = async (query: string, variables: Json = {}, token?: string | null): Promise<GraphError> => {
      const body = await gql(query, variables, token);
      expect(body.errors, JSON.stringify(body)).toHaveLength(1);
      return body.errors?.[0] as GraphError;
    };

    /** createX(input) { id revision ...fields } → the created object. */
    const create = async (type: string, input: Json, fields = 'id revision'): Promise<Json> =>
      (await data(`mutation ($input: ${type}CreateInput!) { create${type}(input: $input) { ${fields} } }`, { input }))[
        `create${type}`
      ] as Json;

    beforeAll(async () => {
      harness = await openHttpApp(target);
      developer = await harness.serviceAccount('gql-mutation-developer', ['default']);
    }, 60_000);
    afterAll(() => harness.close());

    it('offers exactly the actions the write operations take, and delete where REST deletes', () => {
      for (const entity of MUTATION_ENTITIES) {
        const writes = writesOf(harness.services)[entity.kind];
        expect(entity.actions, entity.type).toEqual(writes.actions);
        expect(entity.deletable, entity.type).toBe('remove' in writes && writes.remove !== undefined);
      }
    });

    describe('every catalog kind: create, update (revision), action, delete', () => {
      const ids: Record<string, string> = {};
      const inputs = (): [string, Json, string, string][] => [
        [
          'Integration',
          { name: 'gql git', integrationType: 'git', integrationProvider: 'github', configuration: { token: 'ghp_mutationmutation' } },
          'name',
          'disable',
        ],
        [
          'Integration',
          {
            name: 'gql aws',
            integrationType: 'cloud',
            integrationProvider: 'aws',
            configuration: {
              awsAccessKeyId: 'AKIAMUTATION0000001',
              awsSecretAccessKey: 'mutation-secret',
              awsAccount: '111111111111',
              awsDefaultRegion: 'eu-west-1',
            },
          },
          'name',
          'disable',
        ],
        [
          'Secret',
          { name: 'gql secret', secretProvider: 'aws', configuration: { name: 'gql/db', awsRegion: 'eu-west-1' }, integrationId: ids.aws },
          'name',
          'disable',
        ],
        [
          'SourceCode',
          { sourceCodeUrl: 'https://github.com/acme/gql-module.git', sourceCodeProvider: 'github', integrationId: ids.git },
          'identifier',
          'disable',
        ],
        ['Template', { name: 'gql template', template: 'gql_template' }, 'name', 'disable'],
        [
          'SourceCodeVersion',
          { sourceCodeVersion: 'v1.0.0', sourceCodeFolder: 'modules/gql', templateId: ids.Template, sourceCodeId: ids.SourceCode },
          'identifier',
          'disable',
        ],
        [
          'Storage',
          {
            name: 'gql storage',
            storageProvider: 'aws',
            configuration: { awsBucketName: 'gql-state', awsRegion: 'eu-west-1' },
            integrationId: ids.aws,
          },
          'name',
          'execute',
        ],
        ['Executor', { name: 'gql executor', sourceCodeId: ids.SourceCode }, 'name', 'execute'],
        [
          'Workspace',
          {
            name: 'gql workspace',
            workspaceProvider: 'github',
            configuration: { url: 'https://github.com/acme/infra' },
            integrationId: ids.git,
          },
          'name',
          'disable',
        ],
        ['Resource', { name: 'gql resource', templateId: ids.Template, sourceCodeVersionId: ids.SourceCodeVersion }, 'name', 'approve'],
      ];

      it('creates each kind from its declared input and answers it as the read side shows it', async () => {
        for (let i = 0; i < inputs().length; i++) {
          const [type, input, field] = inputs()[i] as [string, Json, string, string];
          const created = await create(type, input, `id revision ${field} createdAt creator { identifier }`);
          expect(created, type).toMatchObject({ revision: 1, creator: { identifier: 'admin' } });
          if (type === 'Integration') ids[input.integrationType === 'git' ? 'git' : 'aws'] = created.id as string;
          else ids[type] = created.id as string;
        }
        expect(Object.keys(ids)).toHaveLength(10);
      });

      it('updates each kind with If-Match as revision, and refuses a stale revision with PRECONDITION_FAILED', async () => {
        for (const [type, key] of [
          ['Template', 'Template'],
          ['Integration', 'git'],
          ['Storage', 'Storage'],
          ['Resource', 'Resource'],
          ['Workspace', 'Workspace'],
          ['Secret', 'Secret'],
          ['SourceCode', 'SourceCode'],
          ['SourceCodeVersion', 'SourceCodeVersion'],
          ['Executor', 'Executor'],
        ] as const) {
          const id = ids[key];
          const updated = (
            await data(
              `mutation ($id: UUID!) { update${type}(id: $id, input: {description: "changed", labels: ["gql"]}, revision: 1) { id ` +
                `revision description labels } }`,
              { id },
            )
          )[`update${type}`];
          expect(updated, type).toEqual({ id, revision: 2, description: 'changed', labels: ['gql'] });
          const stale = await errorOf(
            `mutation ($id: UUID!) { update${type}(id: $id, input: {description: "again"}, revision: 1) { id } }`,
            { id },
          );
          expect(stale.extensions.code, type).toBe('PRECONDITION_FAILED');
          expect(stale.path).toEqual([`update${type}`]);
        }
      });

      it('takes actions from each kind’s action enum', async () => {
        expect(
          (await data('mutation ($id: UUID!) { templateAction(id: $id, action: disable) { status } }', { id: ids.Template }))
            .templateAction,
        ).toEqual({ status: 'disabled' });
        expect(
          (await data('mutation ($id: UUID!) { templateAction(id: $id, action: enable) { status } }', { id: ids.Template })).templateAction,
        ).toEqual({ status: 'enabled' });
        const storage = async (action: string, input?: Json) =>
          (
            await data(
              'mutation ($id: UUID!, $action: StorageAction!, $input: JSON) { storageAction(id: $id, action: $action, input: $input) { ' +
                'state status } }',
              { id: ids.Storage, action, input },
            )
          ).storageAction;
        expect(await storage('execute')).toMatchObject({ state: 'provision' });
        expect(await storage('start')).toMatchObject({ status: 'in_progress' });
        expect(await storage('succeed', { outputs: { bucket: 'gql-state' } })).toMatchObject({ state: 'provisioned', status: 'done' });
        // Nobody approves their own request (docs/contract.md §6): an infra account approves the admin's.
        const approver = await harness.serviceAccount('gql-approver', ['infra']);
        const resource = async (action: string, input?: Json, token?: string) =>
          (
            await data(
              'mutation ($id: UUID!, $action: ResourceAction!, $input: JSON) { resourceAction(id: $id, action: $action, input: $input) ' +
                '{ state status outputs } }',
              { id: ids.Resource, action, input },
              token,
            )
          ).resourceAction as Json;
        await resource('approve', undefined, approver);
        for (const action of ['execute', 'start']) await resource(action);
        expect(await resource('fail', { error: 'quota exceeded' })).toMatchObject({ status: 'error' });
        const unknown = await errorOf('mutation ($id: UUID!) { resourceAction(id: $id, action: explode) { id } }', { id: ids.Resource });
        expect(unknown.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        const badInput = await errorOf('mutation ($id: UUID!) { resourceAction(id: $id, action: fail, input: {error: ""}) { id } }', {
          id: ids.Resource,
        });
        expect(badInput.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [expect.objectContaining({ field: 'error' })] });
      });

      it('every kind takes an action and is deleted through its own mutations', async () => {
        expect(
          (await data('mutation ($id: UUID!) { executorAction(id: $id, action: execute) { status } }', { id: ids.Executor }))
            .executorAction,
        ).toEqual({ status: 'queued' });
        const fresh: Record<string, string> = {};
        const make = async (type: string, input: Json) => (fresh[type] = (await create(type, input)).id as string);
        await make('Integration', {
          name: 'gql doomed git',
          integrationType: 'git',
          integrationProvider: 'github',
          configuration: { token: 'ghp_doomeddoomed' },
        });
        await make('Template', { name: 'gql doomed template', template: 'gql_doomed' });
        await make('SourceCode', {
          sourceCodeUrl: 'https://github.com/acme/gql-doomed.git',
          sourceCodeProvider: 'github',
          integrationId: fresh.Integration,
        });
        await make('SourceCodeVersion', {
          sourceCodeVersion: 'v9.9.9',
          sourceCodeFolder: 'modules/doomed',
          templateId: fresh.Template,
          sourceCodeId: fresh.SourceCode,
        });
        await make('Secret', {
          name: 'gql doomed secret',
          secretProvider: 'aws',
          configuration: { name: 'gql/doomed', awsRegion: 'eu-west-1' },
          integrationId: ids.aws,
        });
        await make('Storage', {
          name: 'gql doomed storage',
          storageProvider: 'aws',
          configuration: { awsBucketName: 'gql-doomed', awsRegion: 'eu-west-1' },
          integrationId: ids.aws,
        });
        await make('Executor', { name: 'gql doomed executor', sourceCodeId: fresh.SourceCode });
        await make('Workspace', {
          name: 'gql doomed workspace',
          workspaceProvider: 'github',
          configuration: { url: 'https://github.com/acme/doomed' },
          integrationId: fresh.Integration,
        });
        await make('Resource', { name: 'gql doomed resource', templateId: fresh.Template, sourceCodeVersionId: fresh.SourceCodeVersion });
        for (const type of ['Integration', 'Template', 'SourceCode', 'SourceCodeVersion', 'Secret', 'Workspace']) {
          const action = `${type.charAt(0).toLowerCase()}${type.slice(1)}Action`;
          expect(
            (await data(`mutation ($id: UUID!) { ${action}(id: $id, action: disable) { status } }`, { id: fresh[type] }))[action],
            type,
          ).toEqual({ status: 'disabled' });
        }
        expect(
          (await data('mutation ($id: UUID!) { resourceAction(id: $id, action: reject) { status } }', { id: fresh.Resource }))
            .resourceAction,
        ).toEqual({ status: 'rejected' });
        // Referrers first: each delete must leave nothing pointing at the next.
        for (const type of [
          'Resource',
          'SourceCodeVersion',
          'Executor',
          'Storage',
          'Workspace',
          'SourceCode',
          'Template',
          'Secret',
          'Integration',
        ]) {
          expect((await data(`mutation ($id: UUID!) { delete${type}(id: $id) }`, { id: fresh[type] }))[`delete${type}`], type).toBe(true);
          const single = `${type.charAt(0).toLowerCase()}${type.slice(1)}`;
          expect((await data(`query ($id: UUID) { ${single}(id: $id) { id } }`, { id: fresh[type] }))[single], type).toBeNull();
        }
      });

      it('deletes, and names the referrers of a refused delete with CONFLICT', async () => {
        const refused = await errorOf('mutation ($id: UUID!) { deleteIntegration(id: $id) }', { id: ids.git });
        expect(refused.extensions.code).toBe('STILL_REFERENCED');
        expect((await data('mutation ($id: UUID!) { deleteWorkspace(id: $id) }', { id: ids.Workspace })).deleteWorkspace).toBe(true);
        expect((await data('query ($id: UUID) { workspace(id: $id) { id } }', { id: ids.Workspace })).workspace).toBeNull();
        const gone = await errorOf('mutation ($id: UUID!) { updateWorkspace(id: $id, input: {description: "x"}) { id } }', {
          id: ids.Workspace,
        });
        expect(gone.extensions.code).toBe('NOT_FOUND');
      });
    });

    describe('errors from the one taxonomy', () => {
      it('BAD_USER_INPUT naming each field, and CONFLICT for a taken name', async () => {
        const invalid = await errorOf('mutation { createTemplate(input: {template: "Not A Slug", labels: ["a", "a"]}) { id } }');
        expect(invalid.extensions.code).toBe('BAD_USER_INPUT');
        expect((invalid.extensions.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(
          expect.arrayContaining(['name', 'template']),
        );
        await create('Template', { name: 'gql taken', template: 'gql_taken' });
        const taken = await errorOf('mutation { createTemplate(input: {name: "gql taken", template: "gql_taken_2"}) { id } }');
        expect(taken.extensions.code).toBe('NOT_UNIQUE');
        const badRevision = await errorOf('mutation ($id: UUID!) { updateTemplate(id: $id, input: {}, revision: 0) { id } }', {
          id: '00000000-0000-4000-8000-000000000000',
        });
        expect(badRevision.extensions).toMatchObject({
          code: 'BAD_USER_INPUT',
          errors: [{ field: 'revision', message: 'must be a positive integer' }],
        });
      });

      it('FORBIDDEN for a caller without the write permission, UNAUTHENTICATED without a token', async () => {
        const forbidden = await errorOf(
          'mutation { createTemplate(input: {name: "gql nope", template: "gql_nope"}) { id } }',
          {},
          developer,
        );
        expect(forbidden).toMatchObject({ path: ['createTemplate'], extensions: { code: 'FORBIDDEN' } });
        const body = await gql('mutation { createTemplate(input: {name: "gql nope", template: "gql_nope"}) { id } }', {}, null);
        expect(body).toEqual({
          data: null,
          errors: [
            {
              message: 'Not authenticated. Please provide a valid bearer token in the Authorization header.',
              extensions: { code: 'UNAUTHENTICATED' },
            },
          ],
        });
      });

      it('NOT_FOUND for an id that names nothing', async () => {
        const missing = await errorOf('mutation { templateAction(id: "00000000-0000-4000-8000-000000000000", action: disable) { id } }');
        expect(missing.extensions.code).toBe('NOT_FOUND');
      });
    });

    describe('users, auth providers and personal access tokens', () => {
      it('creates, updates and acts on users (super only)', async () => {
        const user = await create(
          'User',
          { kind: 'service_account', identifier: 'gql-made', password: 'gql-made-password-1', roles: ['default'] },
          'id identifier roles deactivated',
        );
        expect(user).toMatchObject({ identifier: 'gql-made', roles: ['default'], deactivated: false });
        const updated = (
          await data('mutation ($id: UUID!) { updateUser(id: $id, input: {displayName: "Made by GraphQL"}) { name } }', { id: user.id })
        ).updateUser;
        expect(updated).toEqual({ name: 'Made by GraphQL' });
        for (const [action, deactivated] of [
          ['deactivate', true],
          ['reactivate', false],
          ['revoke_sessions', false],
        ] as const) {
          const acted = (await data(`mutation ($id: UUID!) { userAction(id: $id, action: ${action}) { deactivated } }`, { id: user.id }))
            .userAction;
          expect(acted, action).toEqual({ deactivated });
        }
        const forbidden = await errorOf(
          'mutation { createUser(input: {kind: "service_account", identifier: "gql-nope", password: "gql-nope-password"}) { id } }',
          {},
          developer,
        );
        expect(forbidden.extensions.code).toBe('FORBIDDEN');
      });

      it('creates, updates, disables and deletes auth providers; personal access tokens are created (secret once) and revoked', async () => {
        const provider = await create(
          'AuthProvider',
          { name: 'GQL PATs', type: 'personal_access_token', configuration: {} },
          'id key enabled',
        );
        expect(provider).toMatchObject({ key: 'personal_access_token', enabled: true });
        expect(
          (
            await data('mutation ($id: UUID!) { updateAuthProvider(id: $id, input: {description: "tokens"}) { description } }', {
              id: provider.id,
            })
          ).updateAuthProvider,
        ).toEqual({ description: 'tokens' });
        const immutable = await errorOf('mutation ($id: UUID!) { updateAuthProvider(id: $id, input: {key: "other"}) { id } }', {
          id: provider.id,
        });
        expect(immutable.extensions.code).toBe('BAD_USER_INPUT');

        const created = (
          await data(
            'mutation { createPersonalAccessToken(input: {name: "gql", expiresInDays: 7}) { id name token expiresAt } }',
            {},
            developer,
          )
        ).createPersonalAccessToken as Json;
        expect(created.token).toMatch(/^[A-Za-z0-9_]+/);
        expect((await data('{ me { identifier } }', {}, created.token as string)).me).toEqual({ identifier: 'gql-mutation-developer' });
        const minted = await errorOf(
          'mutation { createPersonalAccessToken(input: {name: "again", expiresInDays: 7}) { token } }',
          {},
          created.token as string,
        );
        expect(minted.extensions.code).toBe('FORBIDDEN');
        expect(
          (await data('mutation ($id: UUID!) { revokePersonalAccessToken(id: $id) }', { id: created.id }, developer))
            .revokePersonalAccessToken,
        ).toBe(true);
        expect((await gql('{ me { identifier } }', {}, created.token as string)).errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');

        expect(
          (await data('mutation ($id: UUID!) { authProviderAction(id: $id, action: disable) { enabled } }', { id: provider.id }))
            .authProviderAction,
        ).toEqual({ enabled: false });
        expect((await data('mutation ($id: UUID!) { deleteAuthProvider(id: $id) }', { id: provider.id })).deleteAuthProvider).toBe(true);
      });
    });

    it('audits a mutation as the REST write: the same event, the caller as actor', async () => {
      const created = await create('Template', { name: 'gql audited', template: 'gql_audited' });
      const audit = (
        await data('query ($f: JSON) { auditLog(filter: $f) { action entityType actor { identifier } } }', { f: { entityId: created.id } })
      ).auditLog;
      expect(audit).toEqual([{ action: 'TemplateCreated', entityType: 'template', actor: { identifier: 'admin' } }]);
    });

    it('aliased copies of a mutation each count against its rate limit (serviceAccountToken: 30 sign-ins a minute per address)', async () => {
      await create('User', { kind: 'service_account', identifier: 'gql-limited', password: 'gql-limited-password' }, 'id');
      const copies = Array.from(
        { length: 20 },
        (_, i) => `t${i}: serviceAccountToken(identifier: "gql-limited", password: "gql-limited-password") { token }`,
      ).join(' ');
      const first = await gql(`mutation { ${copies} }`, {}, null);
      expect(first.errors).toBeUndefined();
      expect(Object.keys(first.data ?? {})).toHaveLength(20);
      // The second document's copies cross the 30 a minute: refused, and mutations run one after another, so none after it runs.
      const second = await gql(`mutation { ${copies} }`, {}, null);
      expect(second.data).toBeNull();
      expect(second.errors?.map((error) => error.extensions.code)).toEqual(['RATE_LIMITED']);
    });
  });
}
