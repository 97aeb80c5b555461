import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../src/cli/seed/catalog.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import { OBJECT_TYPES, type TypeName } from '../../src/graphql/model.js';
import { NOT_AUTHENTICATED } from '../../src/edge/authorize.js';
import { databaseTargets } from '../support/databases.js';
import { ADMIN_PASSWORD, openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

interface GraphBody {
  readonly data: Json | null;
  readonly errors?: readonly { message: string; path?: readonly (string | number)[]; extensions: Json }[];
}

/** The session check a recalled caller's first statement carries (graphql-recalled-caller.int.spec.ts tests it). */
const withoutSessionCheck = (statement: string): string =>
  statement.replace(/^select coalesce\(\(select guard_s\.xmin::text .*? = \$\d+, false\) as "__session_unchanged", /, 'select ');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The nine catalog entities: single query, list query, count query, a field every row has. */
const ENTITIES = [
  ['integration', 'integrations', 'name'],
  ['storage', 'storages', 'name'],
  ['secret', 'secrets', 'name'],
  ['sourceCode', 'sourceCodes', 'sourceCodeUrl'],
  ['sourceCodeVersion', 'sourceCodeVersions', 'identifier'],
  ['template', 'templates', 'name'],
  ['executor', 'executors', 'name'],
  ['resource', 'resources', 'name'],
  ['workspace', 'workspaces', 'name'],
] as const;

for (const target of databaseTargets()) {
  describe(`GraphQL at /api/graphql on ${target.name}`, () => {
    let harness: HttpHarness;
    /** Statements issued through Kysely while `capturing` is on (authentication's session lookup excluded). */
    let captured: string[] = [];
    let capturing = false;
    let defaultToken: string;
    let workspaceId: string;

    const post = (
      query: string,
      options: { token?: string | null; variables?: Json; headers?: Record<string, string> } = {},
    ): Promise<LightMyRequestResponse> => {
      const token = options.token === undefined ? harness.adminToken : options.token;
      return harness.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: {
          'content-type': 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...options.headers,
        },
        payload: { query, variables: options.variables },
      });
    };
    const gql = async (query: string, options: Parameters<typeof post>[1] = {}): Promise<GraphBody> =>
      (await post(query, options)).json<GraphBody>();
    const data = async (query: string, options: Parameters<typeof post>[1] = {}): Promise<Json> => {
      const body = await gql(query, options);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data as Json;
    };
    /** The SQL statements one request issues (only those reading the catalog, users and audit tables). */
    const statementsOf = async (query: string, options: Parameters<typeof post>[1] = {}): Promise<{ body: GraphBody; sql: string[] }> => {
      captured = [];
      capturing = true;
      try {
        const body = await gql(query, options);
        return { body, sql: captured.filter((statement) => !statement.includes('"sessions"')).map(withoutSessionCheck) };
      } finally {
        capturing = false;
      }
    };

    beforeAll(async () => {
      harness = await openHttpApp(target, {
        onQuery: (sql) => {
          if (capturing) captured.push(sql);
        },
      });
      const summary = await seedCatalog(harness.services, { resources: 120, templates: 6, executors: 3, concurrency: 8, prefix: 'gql' });
      await waitForProjections(harness.services, summary.head);
      defaultToken = await harness.serviceAccount('gql-developer', ['default']);
      // The seed writes no workspace; one makes the `workspace` queries meaningful.
      const integrations = await harness.inject({
        method: 'GET',
        url: `/api/integrations?filter=${encodeURIComponent('{"integrationProvider":"github"}')}`,
      });
      const github = integrations.json<{ id: string }[]>()[0];
      const created = await harness.inject({
        method: 'POST',
        url: '/api/workspaces',
        payload: {
          name: 'gql-workspace',
          workspaceProvider: 'github',
          integrationId: github?.id,
          configuration: { url: 'https://github.com/acme/infra' },
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      workspaceId = created.json<{ id: string }>().id;
    }, 180_000);
    afterAll(async () => {
      await harness.close();
    });

    describe('authentication (docs/contract.md §4)', () => {
      it('answers a query without a token with data null and the one UNAUTHENTICATED error', async () => {
        const response = await post('{ templates { id } }', { token: null });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ data: null, errors: [{ message: NOT_AUTHENTICATED, extensions: { code: 'UNAUTHENTICATED' } }] });
      });

      it('names the reason for a malformed, tampered, expired or revoked token, in the same shape', async () => {
        const expectRefused = async (token: string, reason: RegExp): Promise<void> => {
          const response = await post('{ me { id } }', { token });
          expect(response.statusCode).toBe(200);
          const body = response.json<GraphBody>();
          expect(body.data).toBeNull();
          expect(body.errors).toHaveLength(1);
          expect(body.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
          expect(body.errors?.[0]?.message).toMatch(/^Not authenticated: /);
          expect(body.errors?.[0]?.message).toMatch(reason);
        };
        await expectRefused('not-a-jwt', /token/i);
        const [header, payload] = harness.adminToken.split('.');
        await expectRefused(`${header}.${payload}.AAAA`, /signature|token/i);
        const me = (await data('{ me { id } }')).me as { id: string };
        const expired = await harness.services.tokens.issue({
          userId: me.id,
          sessionId: '00000000-0000-4000-8000-000000000000',
          ttlSeconds: 60,
          now: new Date('2020-01-01T00:00:00Z'),
        });
        await expectRefused(expired.token, /expired/i);
        const token = await harness.serviceAccount('gql-revoked', ['default']);
        const logout = await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } });
        expect(logout.statusCode).toBe(204);
        await expectRefused(token, /revoked/i);
      });

      it('serves introspection and enabledAuthProviders without a token, and ignores a bad token there', async () => {
        const body = await data('{ __schema { queryType { name } } enabledAuthProviders { key type name loginUrl } }', { token: null });
        expect(body.__schema).toEqual({ queryType: { name: 'Query' } });
        expect(body.enabledAuthProviders).toContainEqual({
          key: 'svc_service_account',
          type: 'svc_service_account',
          name: expect.any(String) as string,
          loginUrl: '/api/auth/service_account/token',
        });
        expect((await gql('{ __type(name: "Resource") { name } }', { token: 'garbage' })).data).toEqual({ __type: { name: 'Resource' } });
      });

      it('refuses a document that mixes public and private fields without a token', async () => {
        const body = await gql('{ enabledAuthProviders { key } templates { id } }', { token: null });
        expect(body).toEqual({ data: null, errors: [{ message: NOT_AUTHENTICATED, extensions: { code: 'UNAUTHENTICATED' } }] });
      });

      it('issues a service-account token through the mutation, usable on GraphQL and REST, and audits it', async () => {
        const mutation =
          'mutation ($identifier: String!, $password: String!) { serviceAccountToken(identifier: $identifier, password: $password) { ' +
          'token expiresAt } }';
        const issued = (await data(mutation, { token: null, variables: { identifier: 'admin', password: ADMIN_PASSWORD } }))
          .serviceAccountToken as { token: string; expiresAt: string };
        expect(issued.expiresAt).toMatch(ISO);
        expect(((await data('{ me { identifier roles } }', { token: issued.token })).me as Json).identifier).toBe('admin');
        const rest = await harness.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${issued.token}` } });
        expect(rest.statusCode).toBe(200);

        const refused = await gql(mutation, { token: null, variables: { identifier: 'admin', password: 'wrong-password' } });
        expect(refused.data).toBeNull();
        expect(refused.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
        expect(refused.errors?.[0]?.message).not.toContain('wrong-password');
        // A refused sign-in answers before its audit event is projected; wait for the log to reach it.
        await waitForProjections(harness.services, await harness.services.store.lastPosition());
        const audit = (await data('{ auditLog(filter: {action__like: "SignIn"}, range: [0, 1000]) { action changes } }')).auditLog as {
          action: string;
          changes: Json;
        }[];
        expect(audit.map((entry) => entry.action)).toEqual(
          expect.arrayContaining([expect.stringMatching(/Succeeded|Issued/), expect.stringMatching(/Failed/)]),
        );
        expect(JSON.stringify(audit)).not.toContain('wrong-password');
        expect(JSON.stringify(audit)).not.toContain(ADMIN_PASSWORD);
      });

      it('validates the mutation arguments as the REST endpoint does', async () => {
        const body = await gql('mutation { serviceAccountToken(identifier: "", password: "x") { token } }', { token: null });
        expect(body.errors?.[0]?.extensions).toMatchObject({
          code: 'BAD_USER_INPUT',
          errors: [{ field: 'identifier', message: 'must not be empty' }],
        });
      });

      it('shares the sign-in rate limit with the REST endpoint: failures on either slow down both', async () => {
        const mutation = 'mutation { serviceAccountToken(identifier: "gql-limited", password: "wrong-password") { token } }';
        for (let i = 0; i < 5; i++) {
          const rest = await harness.app.inject({
            method: 'POST',
            url: '/api/auth/service_account/token',
            payload: { identifier: 'gql-limited', password: 'wrong-password' },
          });
          expect(rest.statusCode).toBe(401);
        }
        // The test clock moves a second per reading, so the growing back-off is reached within a few attempts.
        let limited: GraphBody['errors'] = undefined;
        for (let i = 0; i < 10 && !limited; i++) {
          const body = await gql(mutation, { token: null });
          if (body.errors?.[0]?.extensions.code === 'RATE_LIMITED') limited = body.errors;
          else expect(body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
        }
        expect(limited?.[0]?.message).toMatch(/^too many sign-in attempts .*; retry in \d+ s$/);
        expect(limited?.[0]?.extensions.retryAfter).toEqual(expect.any(Number));
      });

      it('accepts personal access tokens as bearer tokens', async () => {
        const provider = await harness.inject({
          method: 'POST',
          url: '/api/auth_providers',
          payload: { name: 'GraphQL PATs', type: 'personal_access_token', configuration: {} },
        });
        expect([201, 409]).toContain(provider.statusCode);
        const pat = await harness.app.inject({
          method: 'POST',
          url: '/api/personal_access_tokens',
          headers: { authorization: `Bearer ${defaultToken}` },
          payload: { name: 'graphql', expiresInDays: 7 },
        });
        expect(pat.statusCode, pat.body).toBe(201);
        const me = (await data('{ me { identifier } }', { token: pat.json<{ token: string }>().token })).me;
        expect(me).toEqual({ identifier: 'gql-developer' });
      });
    });

    describe('queries', () => {
      for (const [single, plural, field] of ENTITIES) {
        it(`${single}(id), ${plural}(filter, sort, range) and ${plural}Count answer with the REST list's rows`, async () => {
          const rest = await harness.inject({
            method: 'GET',
            url: `/api/${plural === 'sourceCodes' ? 'source_codes' : plural === 'sourceCodeVersions' ? 'source_code_versions' : plural}?range=[0,1000]`,
          });
          const rows = rest.json<Json[]>();
          expect(rows.length).toBeGreaterThan(0);
          const total = Number(rest.headers['content-range']?.toString().split('/')[1]);
          const listed = await data(
            `{ ${plural}(range: [0, 1000], sort: ["createdAt", "ASC"]) { id ${field} createdAt updatedAt revision description labels ` +
              `creator { id name } } ${plural}Count }`,
          );
          const list = listed[plural] as Json[];
          expect(list).toHaveLength(rows.length);
          expect(listed[`${plural}Count`]).toBe(total);
          expect(list.map((row) => row.id)).toEqual(rows.map((row) => row.id).reverse());
          const first = list[0] as Json;
          expect(first.id).toMatch(UUID);
          expect(first.createdAt).toMatch(ISO);
          const byId = rows.find((row) => row.id === first.id) as Json;
          expect(first[field]).toBe(byId[field]);
          expect(first.revision).toBe(byId.revision);
          // Read as UTC text and cut into ISO-8601 (src/graphql/timestamps.ts): the same instants REST shows.
          expect([first.createdAt, first.updatedAt]).toEqual([byId.createdAt, byId.updatedAt]);
          expect(first.creator).toEqual({ id: byId.creatorId, name: 'Administrator' });
          const one = await data(`query ($id: UUID!) { ${single}(id: $id) { id ${field} } }`, {
            variables: { id: String(first.id).toUpperCase() },
          });
          expect(one[single]).toEqual({ id: first.id, [field]: first[field] });
          const missing = await data(`{ ${single}(id: "00000000-0000-4000-8000-000000000000") { id } }`);
          expect(missing[single]).toBeNull();
        });
      }

      it('filters, sorts and pages like REST (filter keys, operators, q, relation ids)', async () => {
        const templates = (await data('{ templates(sort: ["name", "ASC"]) { id name } }')).templates as { id: string; name: string }[];
        const names = templates.map((t) => t.name);
        expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        const page = (await data('{ templates(sort: ["name", "ASC"], range: [1, 2]) { name } }')).templates;
        expect(page).toEqual(names.slice(1, 3).map((name) => ({ name })));
        // With a to-one relation the page is joined after its LIMIT and re-ordered: same rows, same order.
        const joinedPage = (await data('{ templates(sort: ["name", "DESC"], range: [1, 3]) { name creator { name } } }')).templates;
        expect(joinedPage).toEqual(
          [...names]
            .reverse()
            .slice(1, 4)
            .map((name) => ({ name, creator: { name: 'Administrator' } })),
        );
        const template = templates[0] as { id: string; name: string };
        const filtered = await data(
          'query ($f: JSON) { resources(filter: $f, range: [0, 1000]) { template { id } } resourcesCount(filter: $f) }',
          {
            variables: { f: { templateId: template.id } },
          },
        );
        const resources = filtered.resources as { template: { id: string } }[];
        expect(resources.every((r) => r.template.id === template.id)).toBe(true);
        expect(filtered.resourcesCount).toBe(resources.length);
        const inline = (await data(`{ templates(filter: {name__like: ${JSON.stringify(template.name.slice(-3))}}) { name } }`))
          .templates as { name: string }[];
        expect(inline.map((t) => t.name)).toContain(template.name);
        const states = (await data('{ resources(filter: {state: ["provision", "provisioned"]}, range: [0, 1000]) { state } }'))
          .resources as { state: string }[];
        expect(states.length).toBeGreaterThan(0);
        expect(states.every((r) => ['provision', 'provisioned'].includes(r.state))).toBe(true);
      });

      it('answers a bad filter, sort or range with BAD_USER_INPUT naming each problem, like REST', async () => {
        const response = await post('{ templates(filter: {nope: 1}, sort: ["name", "sideways"], range: [0, 5000]) { id } }');
        // A field error (graphql-conformance.int.spec.ts shows the siblings keeping their data).
        expect(response.statusCode).toBe(200);
        const body = response.json<GraphBody>();
        expect(body.data).toEqual({ templates: null });
        expect(body.errors).toHaveLength(1);
        expect(body.errors?.[0]?.path).toEqual(['templates']);
        expect(body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
        expect((body.errors?.[0]?.extensions.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
          'filter.nope',
          'range',
          'sort',
        ]);
        const rest = await harness.inject({ method: 'GET', url: `/api/templates?filter=${encodeURIComponent('{"nope":1}')}` });
        expect(rest.json<{ errors: unknown }>().errors).toEqual(
          (await gql('{ templates(filter: {nope: 1}) { id } }')).errors?.[0]?.extensions.errors,
        );
        const badId = await gql('{ template(id: "not-a-uuid") { id } }');
        expect(badId.errors?.[0]?.message).toMatch(/UUID/);
      });

      it('resolves every relation of the seed: template executors, executor code, storage and integrations, resource template and creator', async () => {
        const body = await data(`{
          templates(range: [0, 100]) { name executors { name runtime } parents { id } children { id } sourceCodeVersions { identifier sourceCode { identifier } } }
          executors { sourceCode { sourceCodeUrl identifier } storage { name integration { name } } integrationIds { name integrationProvider } secretIds { name } }
          resources(range: [0, 5]) { name template { name } creator { name } sourceCodeVersion { identifier } storage { name } parents { name } children { name } integrationIds { name } secretIds { name } }
          sourceCodes(range: [0, 3]) { identifier integration { name } sourceCodeVersions { identifier } }
        }`);
        const templates = body.templates as {
          executors: { name: string; runtime: string }[];
          children: unknown[];
          parents: unknown[];
          sourceCodeVersions: unknown[];
        }[];
        expect(templates.some((t) => t.executors.length > 0 && typeof t.executors[0]?.runtime === 'string')).toBe(true);
        expect(templates.some((t) => t.children.length > 0)).toBe(true);
        expect(templates.some((t) => t.parents.length > 0)).toBe(true);
        expect(templates.some((t) => t.sourceCodeVersions.length > 0)).toBe(true);
        const executors = body.executors as {
          sourceCode: { sourceCodeUrl: string; identifier: string };
          integrationIds: { name: string }[];
        }[];
        for (const executor of executors) expect(executor.sourceCode.identifier).toBe(executor.sourceCode.sourceCodeUrl);
        expect(executors.some((e) => e.integrationIds.length > 0)).toBe(true);
        for (const resource of body.resources as { template: { name: string }; creator: { name: string } }[]) {
          expect(resource.template.name).toEqual(expect.any(String));
          expect(resource.creator.name).toBe('Administrator');
        }
        const workspace = await data(
          `{ workspace(id: "${workspaceId}") { name workspaceProvider configuration integration { integrationProvider } } ` +
            `workspacesCount }`,
        );
        expect(workspace.workspace).toEqual({
          name: 'gql-workspace',
          workspaceProvider: 'github',
          configuration: { url: 'https://github.com/acme/infra', defaultBranch: 'main' },
          integration: { integrationProvider: 'github' },
        });
      });

      it('never shows a secret: integration configurations and sensitive variables are masked', async () => {
        const body = await data(
          '{ integrations(filter: {integrationProvider: "aws"}) { configuration } resources(range: [0, 1000]) { variables } }',
        );
        const integration = (body.integrations as { configuration: Json }[])[0];
        expect(integration?.configuration.awsSecretAccessKey).toBe('********');
        const sensitive = (body.resources as { variables: { sensitive?: boolean; value: unknown }[] }[])
          .flatMap((r) => r.variables)
          .filter((v) => v.sensitive);
        expect(sensitive.length).toBeGreaterThan(0);
        for (const variable of sensitive) expect(variable.value).toBe('********');
      });

      it('me, users, user(id), authProviders, authProvider(id) and auditLog for an administrator', async () => {
        const body = await data(`{
          me { id identifier name kind roles email provider deactivated createdAt }
          users(filter: {identifier: "gql-developer"}) { id identifier roles kind }
          usersCount
          authProviders(sort: ["name", "ASC"]) { id key name type enabled configuration filterByDomain callbackUrl creator { name } }
          auditLog(range: [0, 5]) { id at actor { name } action entityType entityId changes correlationId position }
          auditLogCount
        }`);
        expect(body.me).toMatchObject({
          identifier: 'admin',
          name: 'Administrator',
          kind: 'service_account',
          roles: ['super'],
          deactivated: false,
        });
        const developer = (body.users as Json[])[0] as { id: string };
        expect(body.users).toEqual([{ id: developer.id, identifier: 'gql-developer', roles: ['default'], kind: 'service_account' }]);
        expect(body.usersCount).toBeGreaterThanOrEqual(3);
        expect(await data(`{ user(id: "${developer.id}") { identifier } }`)).toEqual({ user: { identifier: 'gql-developer' } });
        const providers = body.authProviders as { id: string; type: string; callbackUrl: string | null }[];
        expect(providers.map((p) => p.type)).toContain('svc_service_account');
        const svc = providers.find((p) => p.type === 'svc_service_account') as { id: string; callbackUrl: null };
        expect(svc.callbackUrl).toBeNull();
        expect(await data(`{ authProvider(id: "${svc.id}") { type } }`)).toEqual({ authProvider: { type: 'svc_service_account' } });
        const entries = body.auditLog as { at: string; action: string; position: number }[];
        expect(entries).toHaveLength(5);
        expect(entries[0]?.at).toMatch(ISO);
        expect(typeof entries[0]?.position).toBe('number');
        expect(body.auditLogCount).toBeGreaterThan(100);
      });
    });

    describe('permissions (docs/contract.md §6)', () => {
      it('a developer reads the catalog but not users, providers or the rest of the audit log', async () => {
        const me = (await data('{ me { id identifier roles email } }', { token: defaultToken })).me as Json;
        expect(me).toMatchObject({ identifier: 'gql-developer', roles: ['default'] });
        const users = await gql('{ users { id } }', { token: defaultToken });
        // A field error: the list is null, the error has its path.
        expect(users.data).toEqual({ users: null });
        expect(users.errors?.[0]).toMatchObject({
          message: 'missing permission user:read',
          path: ['users'],
          extensions: { code: 'FORBIDDEN' },
        });
        expect((await gql('{ authProviders { id } }', { token: defaultToken })).errors?.[0]?.extensions.code).toBe('FORBIDDEN');
        const admin = (await data('{ me { id } }')).me as { id: string };
        // Anyone may look a user up by id (names are shown through every creator anyway), restricted fields nulled.
        expect(await data(`{ user(id: "${admin.id}") { id name email roles } }`, { token: defaultToken })).toEqual({
          user: { id: admin.id, name: 'Administrator', email: null, roles: null },
        });
        expect(await data(`{ user(id: "${String(me.id)}") { identifier } }`, { token: defaultToken })).toEqual({
          user: { identifier: 'gql-developer' },
        });
        // Others' names are visible through relations; their e-mail, roles and status are not.
        const creator = (
          (await data('{ resources(range: [0, 1]) { creator { name roles email deactivated provider grants } } }', { token: defaultToken }))
            .resources as Json[]
        )[0];
        expect(creator).toEqual({
          creator: { name: 'Administrator', roles: null, email: null, deactivated: null, provider: null, grants: null },
        });
        const audit = (await data('{ auditLog(range: [0, 1000]) { entityType } }', { token: defaultToken })).auditLog as {
          entityType: string;
        }[];
        expect(audit.length).toBeGreaterThan(0);
        expect(
          audit.every((entry) => !['user', 'auth_provider', 'session', 'sign_in', 'personal_access_token'].includes(entry.entityType)),
        ).toBe(true);
      });

      it('a caller without template:read gets FORBIDDEN on the list, null for one, and null relations', async () => {
        const token = await harness.serviceAccount('gql-resources-only', [], ['resource:read']);
        expect((await gql('{ templates { id } }', { token })).errors?.[0]).toMatchObject({
          message: 'missing permission template:read',
          extensions: { code: 'FORBIDDEN' },
        });
        const document = '{ resources(range: [0, 3]) { name template { name } integrationIds { name } } }';
        // The same document run by admin first: its compiled statement (relations joined in) is not reused for this caller.
        const asAdmin = (await data(document)).resources as Json[];
        expect(asAdmin.every((resource) => resource.template !== null)).toBe(true);
        const resources = (await data(document, { token })).resources as Json[];
        expect(resources).toHaveLength(3);
        for (const resource of resources) {
          expect(resource.template).toBeNull();
          expect(resource.integrationIds).toEqual([]);
        }
        const anyTemplate = ((await data('{ templates(range: [0, 1]) { id } }')).templates as { id: string }[])[0];
        expect(await data(`{ template(id: "${anyTemplate?.id ?? ''}") { id } }`, { token })).toEqual({ template: null });
      });
    });

    describe('compiled execution', () => {
      // Mercurius compiles a document with graphql-jit from its second run on: every answer must stay the same.
      it('answers a repeated document identically on its first, second and third run', async () => {
        const anyResource = ((await data('{ resources(range: [0, 1]) { id } }')).resources as { id: string }[])[0];
        const cases: [string, Parameters<typeof post>[1]][] = [
          [
            'query ($r: [Int!], $skip: Boolean!) { a: templates(range: $r, sort: ["name", "ASC"]) { ...T b: name executors @skip(if: ' +
              '$skip) { name } } } fragment T on Template { id __typename parents { name } }',
            { variables: { r: [0, 3], skip: false } },
          ],
          [
            '{ resources(filter: {state: ["provisioned"], name__like: "a"}, range: [0, 5]) { name variables template { name } creator ' +
              '{ name email } } }',
            {},
          ],
          [
            `query ($id: UUID!) { resource(id: $id) { name sourceCodeVersion { identifier } } template(id: ` +
              `"00000000-0000-4000-8000-000000000000") { id } }`,
            { variables: { id: anyResource?.id } },
          ],
          ['{ templates(filter: {nope: 1}) { id } }', {}],
          ['{ users { id } me { identifier } }', { token: defaultToken }],
          [
            '{ resources(range: [0, 2]) { creator { name roles } } auditLog(range: [0, 2], sort: ["position", "ASC"]) { action actor { ' +
              'name } } }',
            { token: defaultToken },
          ],
          ['{ __typename enabledAuthProviders { key } }', { token: null }],
        ];
        // graphql-jit reports resolver errors without `locations` (the path still names the field).
        const strip = (body: GraphBody): unknown =>
          JSON.parse(JSON.stringify(body).replace(/"requestId":"[^"]+"/g, '"requestId":""'), (key, value: unknown) =>
            key === 'locations' ? undefined : value,
          );
        for (const [query, options] of cases) {
          const first = strip(await gql(query, options));
          expect(strip(await gql(query, options)), query).toEqual(first);
          expect(strip(await gql(query, options)), query).toEqual(first);
        }
      });
    });

    describe('field-level loading (seed rules 1-3), proven on the SQL issued', () => {
      it('templates { id name } reads only those two columns, in one statement', async () => {
        const { body, sql } = await statementsOf('{ templates { id name } }');
        expect(body.errors).toBeUndefined();
        expect(sql).toHaveLength(1);
        expect(sql[0]).toMatch(/^select "templates"\."id" as "id", "templates"\."name" as "name" from "templates" where/);
      });

      it('fragments, inline fragments and aliases select the union of the fields they name, and nothing else', async () => {
        const { body, sql } = await statementsOf(
          '{ templates { ...Names ... on Template { slug: template } again: name } } fragment Names on Template { name }',
        );
        expect(body.errors).toBeUndefined();
        expect(sql).toHaveLength(1);
        const columns = [...(sql[0] ?? '').matchAll(/"templates"\."(\w+)" as/g)].map((m) => m[1]).sort();
        expect(columns).toEqual(['name', 'template']);
      });

      it('relations are read only when selected', async () => {
        const { sql } = await statementsOf('{ resources(range: [0, 100]) { id name } }');
        expect(sql).toHaveLength(1);
        expect(sql[0]).not.toMatch(/template_id|creator_id|"users"/);
      });

      it('a 100-row resources page with template { name } creator { name } is one statement, as is a 10-row page', async () => {
        const query = (limit: number) => `{ resources(range: [0, ${limit}]) { id name template { name } creator { name } } }`;
        const large = await statementsOf(query(100));
        const resources = large.body.data?.resources as { template: { name: string }; creator: { name: string } }[];
        expect(resources).toHaveLength(100);
        expect(resources.every((r) => typeof r.template.name === 'string' && r.creator.name === 'Administrator')).toBe(true);
        const small = await statementsOf(query(10));
        expect(large.sql).toHaveLength(1);
        expect(small.sql).toHaveLength(1);
        // To-one relations are joined in, reading only the requested columns and whether the join
        // matched (a boolean: the ids are not asked for); the foreign keys stay inside the page.
        const statement = large.sql[0] ?? '';
        // Each as a LATERAL lookup of one row, so PostgreSQL probes the index instead of hashing the table.
        expect(statement).toMatch(
          /left join lateral \(select [^)]* from "templates" as "j1" where "j1"\."id" = "page"\."template_id" .* limit 1\) as "j1" on true/,
        );
        expect(statement).toMatch(
          /left join lateral \(select [^)]* from "users" as "j2" where "j2"\."id" = "page"\."creator_id" limit 1\) as "j2" on true/,
        );
        const joined = [...statement.matchAll(/"(j\d+)"\."(\w+)" as "j\d+__/g)].map((m) => `${m[1] ?? ''}.${m[2] ?? ''}`).sort();
        // User.name is computed from display_name and identifier.
        expect(joined).toEqual(['j1.name', 'j2.display_name', 'j2.identifier']);
        expect(statement).toMatch(/"j1"\."id" is not null as "j1_found"/);
        const outer = statement.slice(0, statement.indexOf(' from '));
        expect(outer).not.toMatch(/template_id|creator_id/);
      });

      it('executors { sourceCode storage integrationIds } is one statement, whatever the row count', async () => {
        const query = (limit: number) =>
          `{ executors(range: [0, ${limit}]) { sourceCode { sourceCodeUrl identifier } storage { name } integrationIds { name ` +
          `integrationProvider } } }`;
        const all = await statementsOf(query(100));
        const one = await statementsOf(query(1));
        expect(all.body.errors).toBeUndefined();
        // sourceCode and storage joined in, the integrations of each executor aggregated by a LATERAL join.
        expect(all.sql).toHaveLength(1);
        expect(one.sql).toHaveLength(1);
        expect(all.sql[0]).toMatch(
          /left join lateral \(select coalesce\(json_agg\(json_build_object\('id', "m1_t"\."id", 'name', "m1_t"\."name", 'integration_provider'/,
        );
      });

      it('nested relations add one statement per list level below the first, not per row', async () => {
        const { body, sql } = await statementsOf(
          '{ templates(range: [0, 100]) { executors { integrationIds { name } sourceCode { integration { name } } } } }',
        );
        expect(body.errors).toBeUndefined();
        // templates with their executors (sourceCode and its integration joined in) aggregated; the executors' integrations.
        expect(sql).toHaveLength(2);
        const executors = (
          (body.data?.templates ?? []) as { executors: { sourceCode: { integration: { name: string } | null } }[] }[]
        ).flatMap((t) => t.executors);
        expect(executors.length).toBeGreaterThan(0);
        expect(executors.some((e) => typeof e.sourceCode.integration?.name === 'string')).toBe(true);
      });

      it('a list relation read in its parent statement answers what its own statement answers, in the same order', async () => {
        const fields = 'id name createdAt updatedAt labels revision integrationProvider';
        // First level: aggregated into the executors' statement; second level: a statement of its own.
        const top = await data(`{ executors(range: [0, 100]) { id integrationIds { ${fields} } } }`);
        const nested = await data(`{ templates(range: [0, 20]) { executors { id integrationIds { ${fields} } } } }`);
        const direct = new Map((top.executors as { id: string; integrationIds: Json[] }[]).map((e) => [e.id, e.integrationIds]));
        const viaTemplates = (nested.templates as { executors: { id: string; integrationIds: Json[] }[] }[]).flatMap((t) => t.executors);
        expect(viaTemplates.length).toBeGreaterThan(0);
        for (const executor of viaTemplates) expect(direct.get(executor.id)).toEqual(executor.integrationIds);
        const first = [...direct.values()].find((list) => list.length > 0)?.[0] as Json;
        expect(first.createdAt).toMatch(ISO);
        // The REST list names the same integrations in the same order.
        const rest = (await harness.inject({ method: 'GET', url: '/api/executors?range=[0,1000]' })).json<
          { id: string; integrationIds: string[] }[]
        >();
        for (const executor of rest) expect(direct.get(executor.id)?.map((i) => i.id)).toEqual(executor.integrationIds);
      });
    });

    /** Every scalar field of a type (columns and computed values), for the widest selections. */
    const scalarsOf = (type: TypeName): string =>
      Object.entries(OBJECT_TYPES[type].fields)
        .filter(([, field]) => field.kind === 'column' || field.kind === 'computed')
        .map(([name]) => name)
        .join(' ');

    it('a list relation too wide for json_build_object (over 50 keys with its joins) is read by a statement of its own, with the same answers', async () => {
      const wide =
        `id ${scalarsOf('Executor')} sourceCode { ${scalarsOf('SourceCode')} integration { ${scalarsOf('Integration')} } } ` +
        `storage { ${scalarsOf('Storage')} }`;
      const narrow = 'id name';
      const { body, sql } = await statementsOf(`{ templates(range: [0, 20]) { id executors { ${wide} } } }`);
      // The templates, then the executors of all of them with their to-one relations joined: two statements, not one per template.
      expect(sql).toHaveLength(2);
      expect(sql[0]).not.toMatch(/json_agg/);
      expect(sql[1]).toMatch(/"template_executors"/);
      const templates = body.data?.templates as { id: string; executors: Json[] }[];
      const aggregated = await data(`{ templates(range: [0, 20]) { id executors { ${narrow} } } }`);
      const byTemplate = new Map((aggregated.templates as { id: string; executors: Json[] }[]).map((t) => [t.id, t.executors]));
      expect(templates.some((t) => t.executors.length > 0)).toBe(true);
      for (const template of templates) {
        expect(template.executors.map((e) => ({ id: e.id, name: e.name }))).toEqual(byTemplate.get(template.id));
      }
      // The wide rows hold what the executors root field answers for them.
      const roots = await data(`{ executors(range: [0, 500]) { ${wide} } }`);
      const rootById = new Map((roots.executors as Json[]).map((e) => [e.id, e]));
      for (const executor of templates.flatMap((t) => t.executors)) expect(executor).toEqual(rootById.get(executor.id as string));
    });

    describe('limits, refused before anything runs', () => {
      it('refuses a query deeper than GRAPHQL_MAX_DEPTH', async () => {
        const deep = `{ templates { ${'parents { '.repeat(10)}id${' }'.repeat(10)} } }`;
        const { body, sql } = await statementsOf(deep);
        expect(sql).toHaveLength(0);
        // A request error: refused before execution, so no data entry at all.
        expect(body).not.toHaveProperty('data');
        expect(body.errors?.[0]).toMatchObject({
          message: 'query depth 12 exceeds the maximum of 10 (GRAPHQL_MAX_DEPTH)',
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'depth' },
        });
      });

      it('refuses more aliases than GRAPHQL_MAX_ALIASES', async () => {
        const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ');
        const body = await gql(`{ templates(range: [0, 1]) { ${aliases} } }`);
        expect(body.errors?.[0]).toMatchObject({
          message: 'query uses 31 aliases; the maximum is 30 (GRAPHQL_MAX_ALIASES)',
          extensions: { limit: 'aliases' },
        });
      });

      it('refuses a query whose cost (lists weighted by their page size) exceeds GRAPHQL_MAX_COST', async () => {
        const { body, sql } = await statementsOf(
          'query ($range: [Int!]) { resources(range: $range) { id template { executors { integrationIds { name } secretIds { name } } ' +
            '} } }',
          {
            variables: { range: [0, 1000] },
          },
        );
        expect(sql).toHaveLength(0);
        expect(body.errors?.[0]?.message).toMatch(/^query cost \d+ exceeds the maximum of 80000 \(GRAPHQL_MAX_COST\)/);
        // The same shape with a small page is fine.
        const ok = await gql(
          'query ($range: [Int!]) { resources(range: $range) { id template { executors { integrationIds { name } secretIds { name } } ' +
            '} } }',
          { variables: { range: [0, 5] } },
        );
        expect(ok.errors).toBeUndefined();
      });

      it('refuses a document larger than GRAPHQL_MAX_DOCUMENT_BYTES', async () => {
        const body = await gql(`{ templates { id } } # ${'x'.repeat(50_000)}`);
        expect(body.errors?.[0]?.message).toMatch(/^query document is \d+ bytes; the maximum is 50000 \(GRAPHQL_MAX_DOCUMENT_BYTES\)$/);
      });

      it('lets GraphiQL-style introspection through whatever its depth', async () => {
        const body = await gql(
          '{ __schema { types { name fields { name type { name kind ofType { name kind ofType { name kind ofType { name kind ofType { ' +
            'name kind ofType { name kind ofType { name } } } } } } } } } } }',
          { token: null },
        );
        expect(body.errors).toBeUndefined();
      });

      it('answers malformed HTTP requests with a 4xx and a GraphQL error naming the problem, never a masked 500', async () => {
        const raw = (method: 'GET' | 'POST', url: string, payload?: string, contentType = 'application/json') =>
          harness.inject({ method, url, headers: { 'content-type': contentType }, ...(payload === undefined ? {} : { payload }) });
        const cases: [LightMyRequestResponse, number, string, RegExp][] = [
          [await raw('POST', '/api/graphql', '{ "query": '), 400, 'BAD_REQUEST', /not valid JSON/],
          [await raw('POST', '/api/graphql', '{}'), 400, 'BAD_REQUEST', /Unknown query/],
          [await raw('POST', '/api/graphql', '{"query": 5}'), 400, 'BAD_REQUEST', /query must be a string/],
          [await raw('POST', '/api/graphql', '[{"query": "{ me { id } }"}]'), 400, 'BAD_REQUEST', /body must be a JSON object/],
          [
            await raw('POST', '/api/graphql', '{"query": "{ me { id } }", "variables": "x"}'),
            400,
            'BAD_REQUEST',
            /variables must be a JSON object/,
          ],
          [
            await raw('POST', '/api/graphql', '{"query": "{ me { id } }", "operationName": 5}'),
            400,
            'BAD_REQUEST',
            /operationName must be a string/,
          ],
          [
            await raw('POST', '/api/graphql', JSON.stringify({ query: '{ me { id } }', variables: { x: 'y'.repeat(1_100_000) } })),
            413,
            'PAYLOAD_TOO_LARGE',
            /too large/,
          ],
          [
            await raw(
              'GET',
              `/api/graphql?query=${encodeURIComponent('mutation { serviceAccountToken(identifier: "a", password: "b") { token } }')}`,
            ),
            405,
            'BAD_REQUEST',
            /Method not allowed/,
          ],
        ];
        for (const [response, status, code, message] of cases) {
          expect(response.statusCode, response.body).toBe(status);
          const body = response.json<GraphBody>();
          expect(body).not.toHaveProperty('data');
          expect(body.errors?.[0]?.extensions.code).toBe(code);
          expect(body.errors?.[0]?.message).toMatch(message);
        }
        const viaGet = await harness.inject({
          method: 'GET',
          url: `/api/graphql?query=${encodeURIComponent('{ me { identifier } }')}`,
          headers: { accept: 'application/json' },
        });
        expect(viaGet.json()).toEqual({ data: { me: { identifier: 'admin' } } });
      });

      it('answers syntax and validation errors with their GraphQL codes, never a 500', async () => {
        // application/json answers well-formed requests 200 (graphql-conformance.int.spec.ts: the other media type).
        const syntax = await post('{ templates { id }');
        expect(syntax.statusCode).toBe(200);
        expect(syntax.json<GraphBody>().errors?.[0]?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
        const notDocument = await post('{}');
        expect(notDocument.statusCode).toBe(200);
        expect(notDocument.json<GraphBody>().errors?.[0]).toMatchObject({
          message: 'query is not a GraphQL document',
          extensions: { code: 'BAD_USER_INPUT' },
        });
        const unknown = await post('{ templates { nope } }');
        expect(unknown.statusCode).toBe(200);
        expect(unknown.json<GraphBody>().errors?.[0]).toMatchObject({
          message: expect.stringMatching(/^Cannot query field "nope" on type "Template"\./) as string,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        });
      });
    });
  });
}
