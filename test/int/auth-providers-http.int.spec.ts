import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authProviderAggregate, LAST_SUPER_SIGN_IN } from '../../src/commands/auth-provider.js';
import { loadAggregate } from '../../src/commands/handler.js';
import type { AuthProviderView, LoginOption } from '../../src/read/auth-providers.js';
import type { ErrorCode, FieldIssue } from '../../src/errors.js';
import type { AuthProviderType } from '../../src/events/auth-provider.js';
import { NOT_AUTHENTICATED } from '../../src/edge/authorize.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Body = Record<string, unknown>;

const MASK = '********';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  NOT_UNIQUE: 409,
  STILL_REFERENCED: 409,
  LAST_SUPER_ACCESS: 409,
  INVALID_REFERENCE: 422,
};

/** Asserts a problem response with this code and, when given, exactly this detail and these errors. */
function expectProblem(
  response: LightMyRequestResponse,
  code: ErrorCode,
  expected: { detail?: string; errors?: readonly FieldIssue[] } = {},
): void {
  expect(response.statusCode, response.body).toBe(STATUS_OF[code]);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = response.json<{ code: ErrorCode; detail: string; errors?: FieldIssue[] }>();
  expect(problem.code).toBe(code);
  if (expected.detail !== undefined) expect(problem.detail).toBe(expected.detail);
  if (expected.errors) expect(problem.errors).toEqual(expected.errors);
}

// Keys and names are unique per database; a counter keeps every test's providers apart.
let counter = 0;
const next = (): number => ++counter;
const secret = (label: string): string => `${label}-secret-${next()}-${'x'.repeat(32)}`;

/** A valid create body of each type, each secret distinct so its absence from responses proves something. */
function bodyOf(type: AuthProviderType): Body & { configuration: Body } {
  const n = next();
  const base = { name: `${type} ${n}`, key: `${type.replaceAll('_', '-')}-${n}` };
  const redirectUrl = `https://catalog.example.com/api/auth/${base.key}/callback`;
  switch (type) {
    case 'github':
      return {
        ...base,
        type,
        configuration: { clientId: 'Iv1.abc', clientSecret: secret('github'), redirectUrl },
        filterByDomain: ['Example.com'],
      };
    case 'google':
      return {
        ...base,
        type,
        configuration: { clientId: 'id.apps.googleusercontent.com', clientSecret: secret('google'), redirectUrl },
        filterByDomain: ['a.example', 'b.example'],
      };
    case 'microsoft':
      return {
        ...base,
        type,
        configuration: { clientId: 'app', clientSecret: secret('microsoft'), tenantId: 'contoso.onmicrosoft.com', redirectUrl },
      };
    case 'backstage':
      return {
        ...base,
        type,
        configuration: { privateKey: secret('backstage'), jwksUrl: 'http://portal.example.com/api/auth/.well-known/jwks.json' },
      };
    case 'personal_access_token':
      return { ...base, type, configuration: { maxLifetimeDays: 30 } };
    case 'svc_service_account':
      // Disabled: an enabled second one would be another way in for admin (see the last-super test).
      return { ...base, type, configuration: {}, enabled: false };
    case 'guest':
      return { ...base, type, configuration: { role: 'infra' }, enabled: false };
  }
}

const SECRET_OF: Partial<Record<AuthProviderType, string>> = {
  github: 'clientSecret',
  google: 'clientSecret',
  microsoft: 'clientSecret',
  backstage: 'privateKey',
};

for (const target of databaseTargets()) {
  describe(`auth providers over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let svcProviderId: string;

    beforeAll(async () => {
      h = await openHttpApp(target);
      const listed = await h.inject({
        method: 'GET',
        url: '/api/auth_providers',
        query: { filter: JSON.stringify({ type: 'svc_service_account' }) },
      });
      svcProviderId = listed.json<AuthProviderView[]>()[0]?.id ?? '';
    });
    afterAll(async () => h.close());

    const inject = (options: InjectOptions): Promise<LightMyRequestResponse> => h.inject(options);
    const post = (payload: unknown) => inject({ method: 'POST', url: '/api/auth_providers', payload: payload as Body });
    const get = (id: string) => inject({ method: 'GET', url: `/api/auth_providers/${id}` });
    const patch = (id: string, payload: Body, headers: Record<string, string> = {}) =>
      inject({ method: 'PATCH', url: `/api/auth_providers/${id}`, payload, headers });
    const action = (id: string, name: string) => inject({ method: 'POST', url: `/api/auth_providers/${id}/actions/${name}` });
    const remove = (id: string) => inject({ method: 'DELETE', url: `/api/auth_providers/${id}` });
    const list = (filter: Body) => inject({ method: 'GET', url: '/api/auth_providers', query: { filter: JSON.stringify(filter) } });

    async function create(body: Body): Promise<AuthProviderView> {
      const response = await post(body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json<AuthProviderView>();
    }

    const storedConfiguration = async (id: string): Promise<Readonly<Record<string, unknown>>> => {
      const { state } = await loadAggregate(h.services, authProviderAggregate, id);
      if (state.status === 'absent') throw new Error(`no provider ${id}`);
      return state.fields.configuration;
    };

    it('finds the service-account provider the first start created', () => {
      expect(svcProviderId).toMatch(UUID);
    });

    describe('when a provider of each type is created', () => {
      // svc_service_account exists already (the first start created it): see the one-per-type test.
      for (const type of ['github', 'google', 'microsoft', 'backstage', 'personal_access_token', 'guest'] as const) {
        it(`answers 201 for ${type} and never shows its secret, in the POST, the GET or the list`, async () => {
          const body = bodyOf(type);
          const response = await post(body);

          expect(response.statusCode, response.body).toBe(201);
          const view = response.json<AuthProviderView>();
          expect(response.headers.location).toBe(`/api/auth_providers/${view.id}`);
          expect(response.headers.etag).toBe('"1"');
          expect(view).toMatchObject({ key: body.key, name: body.name, type, description: '', enabled: body.enabled ?? true, revision: 1 });
          expect(view.callbackUrl).toBe(
            ['github', 'google', 'microsoft'].includes(type) ? `${h.services.config.BASE_URL}/api/auth/${view.key}/callback` : null,
          );
          const secretKey = SECRET_OF[type];
          const clear = secretKey === undefined ? undefined : body.configuration[secretKey];
          if (secretKey !== undefined) expect(view.configuration[secretKey]).toBe(MASK);

          const read = await get(view.id);
          const listed = await list({ id: view.id });
          expect(read.json<AuthProviderView>()).toEqual(view);
          expect(listed.json<AuthProviderView[]>()).toEqual([view]);
          expect(listed.headers['content-range']).toBe('auth_providers 0-0/1');
          if (typeof clear === 'string') for (const r of [response, read, listed]) expect(r.body).not.toContain(clear);
          if (typeof clear === 'string' && secretKey !== undefined) expect((await storedConfiguration(view.id))[secretKey]).toBe(clear);
        });
      }

      it('refuses a second provider of a one-per-type kind, naming the type', async () => {
        const response = await post({ ...bodyOf('svc_service_account'), key: `svc-${next()}` });
        expectProblem(response, 'NOT_UNIQUE', { detail: 'an auth provider of type svc_service_account already exists' });
      });

      it('applies the defaults: key = type, enabled, configuration defaults, domains lower-cased', async () => {
        // Only one personal_access_token provider may exist: remove any an earlier case created.
        for (const existing of (await list({ type: 'personal_access_token' })).json<AuthProviderView[]>()) await remove(existing.id);
        const view = await create({ name: `PAT ${next()}`, type: 'personal_access_token', configuration: {} });
        expect(view).toMatchObject({
          key: 'personal_access_token',
          enabled: true,
          configuration: { maxLifetimeDays: 90 },
          filterByDomain: [],
        });
        const github = await create(bodyOf('github'));
        expect(github.filterByDomain).toEqual(['example.com']);
      });

      it('refuses an unknown configuration key, naming it', async () => {
        const body = bodyOf('github');
        expectProblem(await post({ ...body, configuration: { ...body.configuration, x: 1 } }), 'VALIDATION', {
          detail: 'invalid body: configuration.x',
          errors: [{ field: 'configuration.x', message: 'unknown field' }],
        });
      });

      it('lists the body and configuration problems in one answer', async () => {
        expectProblem(
          await post({ name: '', type: 'github', key: 'Not A Slug', configuration: { clientId: 'a' }, extra: true }),
          'VALIDATION',
          {
            errors: [
              { field: 'name', message: 'must not be empty' },
              { field: 'key', message: 'must match [a-z0-9_-]+' },
              { field: 'extra', message: 'unknown field' },
              { field: 'configuration.clientSecret', message: 'required' },
              { field: 'configuration.redirectUrl', message: 'required' },
            ],
          },
        );
      });

      it('refuses an unknown type and a missing configuration', async () => {
        expectProblem(await post({ name: 'x', type: 'ldap', configuration: {} }), 'VALIDATION', {
          errors: [
            {
              field: 'type',
              message: 'must be one of github, google, microsoft, backstage, personal_access_token, svc_service_account, guest',
            },
          ],
        });
        expectProblem(await post({ name: 'x', type: 'guest' }), 'VALIDATION', {
          errors: [{ field: 'configuration', message: 'required' }],
        });
      });

      it('refuses a masked secret when nothing is stored', async () => {
        const body = bodyOf('google');
        expectProblem(await post({ ...body, configuration: { ...body.configuration, clientSecret: MASK } }), 'VALIDATION', {
          errors: [
            {
              field: 'configuration.clientSecret',
              message: '"********" keeps the stored secret, but none is stored: send the secret itself',
            },
          ],
        });
      });

      it('refuses a second github domain', async () => {
        expectProblem(await post({ ...bodyOf('github'), filterByDomain: ['a.example', 'b.example'] }), 'VALIDATION', {
          errors: [{ field: 'filterByDomain', message: 'a github provider filters by at most one domain' }],
        });
      });

      it('refuses a key or a name (case-insensitively) that another provider has', async () => {
        const first = await create(bodyOf('google'));
        expectProblem(await post({ ...bodyOf('google'), key: first.key }), 'NOT_UNIQUE', {
          detail: `an auth provider with the key "${first.key}" already exists`,
        });
        expectProblem(await post({ ...bodyOf('google'), name: first.name.toUpperCase() }), 'NOT_UNIQUE');
      });
    });

    describe('when a provider is changed', () => {
      it('keeps the stored secret when it is sent back masked', async () => {
        const body = bodyOf('github');
        const view = await create(body);
        const response = await patch(
          view.id,
          { description: 'Company GitHub', configuration: { ...view.configuration, clientId: 'Iv1.new' } },
          { 'If-Match': '"1"' },
        );

        expect(response.statusCode, response.body).toBe(200);
        expect(response.json<AuthProviderView>()).toMatchObject({
          description: 'Company GitHub',
          revision: 2,
          configuration: { clientId: 'Iv1.new', clientSecret: MASK },
        });
        expect(await storedConfiguration(view.id)).toEqual({ ...body.configuration, clientId: 'Iv1.new' });
      });

      it('replaces the secret when a new one is sent, without showing it', async () => {
        const view = await create(bodyOf('backstage'));
        const rotated = secret('rotated');
        const response = await patch(view.id, { configuration: { privateKey: rotated } });

        expect(response.statusCode, response.body).toBe(200);
        expect(response.body).not.toContain(rotated);
        expect(await storedConfiguration(view.id)).toEqual({ privateKey: rotated });
      });

      it('validates the configuration against the stored type', async () => {
        const google = bodyOf('google');
        const view = await create(google);
        expectProblem(await patch(view.id, { configuration: { ...google.configuration, tokenTtlSeconds: 60 } }), 'VALIDATION', {
          errors: [{ field: 'configuration.tokenTtlSeconds', message: 'unknown field' }],
        });
      });

      it('refuses to change the type or the key', async () => {
        const view = await create(bodyOf('google'));
        expectProblem(await patch(view.id, { type: 'github' }), 'UNPROCESSABLE', {
          detail: 'type is immutable (it is "google"); create another provider instead',
        });
        const keyChange = await patch(view.id, { key: 'renamed' });
        expectProblem(keyChange, 'UNPROCESSABLE');
        expect(keyChange.json<{ errors: FieldIssue[] }>().errors.map((e) => e.field)).toEqual(['key']);
      });

      it('answers 412 to a stale If-Match', async () => {
        const view = await create(bodyOf('google'));
        const response = await patch(view.id, { description: 'late' }, { 'If-Match': '"7"' });
        expect(response.statusCode, response.body).toBe(412);
      });
    });

    describe('when a provider is disabled or deleted', () => {
      it('refuses to disable the service-account provider while admin is the only super user', async () => {
        expectProblem(await action(svcProviderId, 'disable'), 'LAST_SUPER_ACCESS', { detail: LAST_SUPER_SIGN_IN });
        expectProblem(await remove(svcProviderId), 'LAST_SUPER_ACCESS', { detail: LAST_SUPER_SIGN_IN });
        expect((await get(svcProviderId)).json<AuthProviderView>().enabled).toBe(true);
      });

      it('disables, enables and deletes another provider', async () => {
        const view = await create(bodyOf('microsoft'));
        expect((await action(view.id, 'disable')).json<AuthProviderView>()).toMatchObject({ enabled: false, revision: 2 });
        expect((await action(view.id, 'enable')).json<AuthProviderView>()).toMatchObject({ enabled: true, revision: 3 });
        expect((await remove(view.id)).statusCode).toBe(204);
        expectProblem(await get(view.id), 'NOT_FOUND', { detail: 'auth provider not found' });
        expect((await list({ id: view.id })).headers['content-range']).toBe('auth_providers */0');
      });
    });

    describe('the public login list', () => {
      it('shows only the enabled providers, without a token', async () => {
        const shown = await create(bodyOf('google'));
        const hidden = await create({ ...bodyOf('github'), enabled: false });
        const response = await h.app.inject({ method: 'GET', url: '/api/auth/providers' });

        expect(response.statusCode, response.body).toBe(200);
        const options = response.json<LoginOption[]>();
        expect(options).toContainEqual({ key: shown.key, type: 'google', name: shown.name, loginUrl: `/api/auth/${shown.key}/login` });
        expect(options).toContainEqual({
          key: 'svc_service_account',
          type: 'svc_service_account',
          name: 'Service accounts',
          loginUrl: '/api/auth/service_account/token',
        });
        expect(options.map((o) => o.key)).not.toContain(hidden.key);
        expect(response.body).not.toContain('clientSecret');
      });
    });

    describe('who may administer providers', () => {
      it('answers 401 without a token', async () => {
        expectProblem(await h.app.inject({ method: 'GET', url: '/api/auth_providers' }), 'UNAUTHENTICATED', { detail: NOT_AUTHENTICATED });
      });

      it('answers 403 naming the permission to a caller without it', async () => {
        const token = await h.serviceAccount(`infra-${next()}`, ['infra']);
        const headers = { authorization: `Bearer ${token}` };
        for (const request of [
          { method: 'GET', url: '/api/auth_providers' },
          { method: 'POST', url: '/api/auth_providers', payload: bodyOf('guest') },
          { method: 'POST', url: `/api/auth_providers/${svcProviderId}/actions/disable` },
        ] as const) {
          expectProblem(await h.app.inject({ ...request, headers }), 'FORBIDDEN', { detail: 'missing permission auth_provider:admin' });
        }
      });
    });
  });
}
