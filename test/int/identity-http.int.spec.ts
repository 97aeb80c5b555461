import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectivePermissions, ENTITY_RESOURCES, type Permission } from '../../src/model/permissions.js';
import { createTokenService, generateSigningJwk, importSigningKey, TOKEN_AUDIENCE, type SigningKey } from '../../src/auth/tokens.js';
import type { AuthProviderView } from '../../src/read/auth-providers.js';
import type { TemplateView } from '../../src/read/templates.js';
import type { ErrorCode, FieldIssue } from '../../src/errors.js';
import { NOT_AUTHENTICATED } from '../../src/edge/authorize.js';
import type { AuditLogView } from '../../src/http/routes/audit-log.js';
import type { PersonalAccessTokenView } from '../../src/http/routes/personal-access-tokens.js';
import type { toUserView } from '../../src/http/routes/users.js';
import { databaseTargets } from '../support/databases.js';
import { ADMIN_PASSWORD, openHttpApp, type HttpHarness } from '../support/http-app.js';

type Body = Record<string, unknown>;
type UserView = ReturnType<typeof toUserView>;

/** `GET /api/auth/me`. */
interface MeView {
  readonly id: string;
  readonly kind: string;
  readonly identifier: string;
  readonly roles: readonly string[];
  readonly grants: readonly string[];
  readonly permissions: readonly Permission[];
  readonly method: string;
  readonly sessionId: string | null;
}

interface ProblemBody {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldIssue[];
  readonly [extension: string]: unknown;
}

interface IssuedTokenBody {
  readonly token: string;
  readonly expiresAt: string;
}

const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  NOT_UNIQUE: 409,
  ALREADY_EXISTS: 409,
  LAST_SUPER_ACCESS: 409,
  ILLEGAL_TRANSITION: 409,
  CONCURRENT_MODIFICATION: 409,
  FEATURE_DISABLED: 409,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MASK = '********';
const MALFORMED_HEADER = "malformed Authorization header: expected 'Bearer <token>'";
const LAST_SUPER = 'refused: this is the last active super user';

// The secrets whose absence from every response and log line the last test proves.
const GITHUB_SECRET = 'gh-super-secret-value-123';
const ACCOUNT_PASSWORD = 'pw-super-secret-value-456';
const ROTATED_PASSWORD = 'pw-rotated-secret-value-789';
const WRONG_PASSWORD = 'pw-wrong-guess-value-000';

const byField = (a: FieldIssue, b: FieldIssue): number => a.field.localeCompare(b.field);

/** Asserts an RFC 9457 problem with this status, code and exact detail (and, when given, exactly these field issues). */
function expectProblem(
  response: LightMyRequestResponse,
  code: ErrorCode,
  detail: string | RegExp,
  errors?: readonly FieldIssue[],
): ProblemBody {
  expect(response.statusCode, response.body).toBe(STATUS_OF[code]);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = response.json<ProblemBody>();
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(STATUS_OF[code]);
  if (typeof detail === 'string') expect(problem.detail).toBe(detail);
  else expect(problem.detail).toMatch(detail);
  if (errors) expect([...(problem.errors ?? [])].sort(byField)).toEqual([...errors].sort(byField));
  return problem;
}

/** A 401 with the exact reason, and the Bearer challenge of RFC 6750 naming it. */
function expectUnauthenticated(response: LightMyRequestResponse, detail: string): void {
  expectProblem(response, 'UNAUTHENTICATED', detail);
  const challenge = response.headers['www-authenticate'];
  if (detail === NOT_AUTHENTICATED) {
    // RFC 6750 §3.1: no error code when no credentials were sent.
    expect(challenge).toBe('Bearer');
    return;
  }
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain(detail.replaceAll('"', "'"));
}

/** The one Set-Cookie header of a response. */
function setCookieOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const value = Array.isArray(header) ? header[0] : header;
  expect(value, 'a Set-Cookie header').toBeTypeOf('string');
  return value ?? '';
}

const cookieValueOf = (setCookie: string): string => /^il_refresh=([^;]*)/.exec(setCookie)?.[1] ?? '';
const json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

for (const target of databaseTargets()) {
  describe(`identity over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let signingJwk: JWK;
    let signingKey: SigningKey;
    let adminToken: string;
    let admin: MeView;
    let logs = '';
    /** Every response of this file (status, headers and body), for the test that nothing leaks. */
    const responses: string[] = [];
    /** Every bearer token and refresh cookie handed out, which no log line may contain. */
    const credentials = new Set<string>();

    beforeAll(async () => {
      // The signing key is handed in (as on PostgreSQL replicas), so tests can forge near-valid tokens.
      signingJwk = await generateSigningJwk();
      signingKey = await importSigningKey(signingJwk);
      const logDestination = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          logs += chunk.toString();
          done();
        },
      });
      h = await openHttpApp(target, { env: { TOKEN_SIGNING_KEY: JSON.stringify(signingJwk) }, logDestination });
      adminToken = h.adminToken;
      credentials.add(adminToken);
      admin = await me(adminToken);
    });
    afterAll(async () => h.close());

    // ---- requests ------------------------------------------------------------------------------

    async function call(options: InjectOptions): Promise<LightMyRequestResponse> {
      const response = await h.app.inject(options);
      responses.push(
        `${String(options.method)} ${JSON.stringify(options.url)} → ${response.statusCode} ${JSON.stringify(response.headers)} ` +
          response.body,
      );
      return response;
    }

    /** A request with this bearer token (none when undefined); `headers` may override it. */
    const as = (token: string | undefined, options: InjectOptions): Promise<LightMyRequestResponse> =>
      call({ ...options, headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...options.headers } });
    const asAdmin = (options: InjectOptions): Promise<LightMyRequestResponse> => as(adminToken, options);
    const withHeader = (authorization: string, url = '/api/auth/me'): Promise<LightMyRequestResponse> =>
      call({ method: 'GET', url, headers: { authorization } });

    async function me(token: string): Promise<MeView> {
      const response = await as(token, { method: 'GET', url: '/api/auth/me' });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<MeView>();
    }

    const signIn = (identifier: string, password: string, remoteAddress?: string): Promise<LightMyRequestResponse> =>
      call({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier, password },
        ...(remoteAddress ? { remoteAddress } : {}),
      });

    async function tokenFor(identifier: string, password: string): Promise<string> {
      const response = await signIn(identifier, password);
      expect(response.statusCode, response.body).toBe(200);
      const { token } = response.json<IssuedTokenBody>();
      credentials.add(token);
      return token;
    }

    const passwordOf = (identifier: string): string => `${identifier}-password-long`;

    async function createUser(
      identifier: string,
      roles: readonly string[],
      grants: readonly string[] = [],
      password = passwordOf(identifier),
    ): Promise<UserView> {
      const response = await asAdmin({
        method: 'POST',
        url: '/api/users',
        payload: { kind: 'service_account', identifier, password, roles, grants },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<UserView>();
    }

    async function serviceAccount(
      identifier: string,
      roles: readonly string[],
      grants: readonly string[] = [],
    ): Promise<{ user: UserView; token: string }> {
      const user = await createUser(identifier, roles, grants);
      return { user, token: await tokenFor(identifier, passwordOf(identifier)) };
    }

    const userAction = (id: string, action: string, token = adminToken) =>
      as(token, { method: 'POST', url: `/api/users/${id}/actions/${action}` });
    const patchUser = (id: string, payload: Body, token = adminToken) => as(token, { method: 'PATCH', url: `/api/users/${id}`, payload });

    async function createProvider(payload: Body): Promise<AuthProviderView> {
      const response = await asAdmin({ method: 'POST', url: '/api/auth_providers', payload });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<AuthProviderView>();
    }

    async function providerAction(id: string, action: 'enable' | 'disable'): Promise<void> {
      const response = await asAdmin({ method: 'POST', url: `/api/auth_providers/${id}/actions/${action}` });
      expect(response.statusCode, response.body).toBe(200);
    }

    /** The audit log as `token` sees it, once the audit projection has caught up with every event so far. */
    async function auditLog(token: string, filter: Body = {}): Promise<AuditLogView[]> {
      const head = await h.services.store.lastPosition();
      const response = await as(token, {
        method: 'GET',
        url: '/api/audit_log',
        query: { filter: JSON.stringify(filter), range: JSON.stringify([0, 1000]) },
        headers: head === undefined ? {} : { 'x-min-position': String(head) },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<AuditLogView[]>();
    }

    let slugs = 0;
    const templateBody = (): Body => ({ name: `Identity template ${++slugs}`, template: `identity_template_${slugs}` });

    // ---- forged tokens -------------------------------------------------------------------------

    const nowSeconds = (): number => Math.floor(h.clock.peek().getTime() / 1000);
    /** The claims of a valid admin token, issued now. */
    const adminClaims = (): Body => ({
      iss: h.services.config.BASE_URL,
      aud: TOKEN_AUDIENCE,
      sub: admin.id,
      sid: admin.sessionId,
      jti: randomUUID(),
      iat: nowSeconds(),
      exp: nowSeconds() + 600,
    });
    const signedWithServiceKey = (claims: Body): Promise<string> =>
      new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: signingKey.kid, typ: 'at+jwt' }).sign(signingKey.privateKey);

    // ---- the tests -----------------------------------------------------------------------------

    describe('when the first start has created admin', () => {
      it('signs admin in: /api/auth/me shows role super, every admin permission and how it signed in', () => {
        expect(admin).toMatchObject({
          id: expect.stringMatching(UUID) as unknown,
          kind: 'service_account',
          identifier: 'admin',
          roles: ['super'],
          grants: [],
          permissions: effectivePermissions(['super'], []),
          method: 'service_account',
          sessionId: expect.stringMatching(UUID) as unknown,
        });
        expect(admin.permissions).toEqual(
          expect.arrayContaining(['auth_provider:admin', 'user:admin', 'audit_log:admin', 'template:admin']),
        );
      });

      it('publishes the public key of its tokens, and never the private part', async () => {
        const response = await call({ method: 'GET', url: '/api/auth/.well-known/jwks.json' });
        expect(response.statusCode).toBe(200);
        const { keys } = response.json<{ keys: JWK[] }>();
        expect(keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: signingJwk.x, kid: signingKey.kid, alg: 'EdDSA', use: 'sig' }]);
        expect(response.body).not.toContain(String(signingJwk.d));
      });

      it('answers 401 with the documented message to a request without a token', async () => {
        expectUnauthenticated(await call({ method: 'GET', url: '/api/templates' }), NOT_AUTHENTICATED);
        expectUnauthenticated(await as(undefined, { method: 'GET', url: '/api/auth/me' }), NOT_AUTHENTICATED);
      });

      it('lets an infra service account create a template', async () => {
        const { user, token } = await serviceAccount('infra-bot', ['infra']);
        expect(user).toMatchObject({
          kind: 'service_account',
          identifier: 'infra-bot',
          roles: ['infra'],
          grants: [],
          deactivated: false,
          creatorId: admin.id,
        });
        const response = await as(token, { method: 'POST', url: '/api/templates', payload: templateBody() });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json<TemplateView>().creatorId).toBe(user.id);
      });

      it('lets a default service account read templates, and refuses it writing one with 403 naming the permission', async () => {
        const { token } = await serviceAccount('reader-bot', ['default']);
        const listed = await as(token, { method: 'GET', url: '/api/templates' });
        expect(listed.statusCode, listed.body).toBe(200);
        expect(listed.json<TemplateView[]>().length).toBeGreaterThan(0);
        const refused = await as(token, { method: 'POST', url: '/api/templates', payload: templateBody() });
        expect(expectProblem(refused, 'FORBIDDEN', 'missing permission template:write').missingPermission).toBe('template:write');
        expectProblem(await as(token, { method: 'GET', url: '/api/users' }), 'FORBIDDEN', 'missing permission user:read');
      });

      it('lets a grant raise a default service account to writing templates', async () => {
        const { token } = await serviceAccount('granted-bot', ['default'], ['template:write']);
        expect((await me(token)).permissions).toContain('template:write');
        const response = await as(token, { method: 'POST', url: '/api/templates', payload: templateBody() });
        expect(response.statusCode, response.body).toBe(201);
      });
    });

    describe('when a bearer token is not one the service issued as it stands', () => {
      it('accepts the genuine admin token (the control for every case below)', async () => {
        expect((await me(adminToken)).id).toBe(admin.id);
        expect((await me(await signedWithServiceKey(adminClaims()))).id).toBe(admin.id);
      });

      it('refuses an expired token', async () => {
        const past = new Date(h.clock.peek().getTime() - 3600_000);
        const { token } = await h.services.tokens.issue({ userId: admin.id, sessionId: admin.sessionId ?? '', ttlSeconds: 1, now: past });
        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'token expired');
      });

      it('refuses a token whose payload was changed under its signature', async () => {
        const [header, payload, signature] = adminToken.split('.');
        const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Body;
        const forged = `${header}.${json({ ...claims, exp: Number(claims.exp) + 86_400 })}.${signature}`;
        expectUnauthenticated(await as(forged, { method: 'GET', url: '/api/auth/me' }), 'invalid token signature');
      });

      it('refuses a token whose signature was changed', async () => {
        const [header, payload, signature = ''] = adminToken.split('.');
        const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
        expectUnauthenticated(
          await as(`${header}.${payload}.${flipped}`, { method: 'GET', url: '/api/auth/me' }),
          'invalid token signature',
        );
      });

      it("refuses a token signed by another key that claims the service key's kid", async () => {
        const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
        const forged = await new SignJWT(adminClaims())
          .setProtectedHeader({ alg: 'EdDSA', kid: signingKey.kid, typ: 'at+jwt' })
          .sign(privateKey);
        expectUnauthenticated(await as(forged, { method: 'GET', url: '/api/auth/me' }), 'invalid token signature');
      });

      it('refuses a token signed with an unknown key', async () => {
        const stranger = createTokenService(await importSigningKey(await generateSigningJwk()), h.services.config.BASE_URL);
        const { token } = await stranger.issue({
          userId: admin.id,
          sessionId: admin.sessionId ?? '',
          ttlSeconds: 600,
          now: h.clock.peek(),
        });
        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'token signed with an unknown key');
      });

      it('refuses a token for another audience, signed with the service key', async () => {
        const forged = await signedWithServiceKey({ ...adminClaims(), aud: 'another-service' });
        expectUnauthenticated(await as(forged, { method: 'GET', url: '/api/auth/me' }), 'token was not issued for this service');
      });

      it('refuses a token from another issuer, signed with the service key', async () => {
        const elsewhere = createTokenService(signingKey, 'https://other.example.com');
        const { token } = await elsewhere.issue({
          userId: admin.id,
          sessionId: admin.sessionId ?? '',
          ttlSeconds: 600,
          now: h.clock.peek(),
        });
        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'token was not issued for this service');
      });

      it('refuses a token without a session claim, signed with the service key', async () => {
        const { sid: _sid, ...claims } = adminClaims();
        expectUnauthenticated(
          await as(await signedWithServiceKey(claims), { method: 'GET', url: '/api/auth/me' }),
          'invalid token: missing claims',
        );
      });

      it('refuses a token typed JWT instead of at+jwt, signed with the service key with valid claims', async () => {
        const typedJwt = await new SignJWT(adminClaims())
          .setProtectedHeader({ alg: 'EdDSA', kid: signingKey.kid, typ: 'JWT' })
          .sign(signingKey.privateKey);
        expectUnauthenticated(await withHeader(`Bearer ${typedJwt}`), 'token type not accepted: an access token says typ at+jwt');
      });

      it('refuses an unsigned token (alg none)', async () => {
        const unsigned = `${json({ alg: 'none', typ: 'JWT' })}.${json(adminClaims())}.`;
        expectUnauthenticated(await as(unsigned, { method: 'GET', url: '/api/auth/me' }), 'token algorithm not allowed');
      });

      it('refuses HS256 tokens keyed with the public key (algorithm confusion)', async () => {
        const jwksText = (await call({ method: 'GET', url: '/api/auth/.well-known/jwks.json' })).body;
        for (const secret of [
          Buffer.from(String(signingJwk.x), 'base64url'),
          new TextEncoder().encode(jwksText),
          new TextEncoder().encode(String(signingJwk.x)),
        ]) {
          const forged = await new SignJWT(adminClaims())
            .setProtectedHeader({ alg: 'HS256', kid: signingKey.kid, typ: 'at+jwt' })
            .sign(secret);
          expectUnauthenticated(await as(forged, { method: 'GET', url: '/api/auth/me' }), 'token algorithm not allowed');
        }
      });

      it('refuses an Authorization header that is not a bearer token', async () => {
        expectUnauthenticated(await withHeader(`Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`), MALFORMED_HEADER);
        expectUnauthenticated(await withHeader('Bearer'), MALFORMED_HEADER);
        expectUnauthenticated(await withHeader('Bearer '), MALFORMED_HEADER);
        expectUnauthenticated(await withHeader(`Bearer ${adminToken} extra`), MALFORMED_HEADER);
      });

      it('refuses a garbage token as malformed', async () => {
        expectUnauthenticated(await withHeader('Bearer garbage'), 'malformed bearer token');
        expectUnauthenticated(await withHeader('Bearer not.a.jwt'), 'malformed bearer token');
        expectUnauthenticated(await withHeader('Bearer ....'), 'malformed bearer token');
      });
    });

    describe('when sessions end: deactivation, reactivation, revocation and logout', () => {
      it("refuses a deactivated user's token on the very next request, and its sign-in", async () => {
        const { user, token } = await serviceAccount('leaving-bot', ['default']);
        expect((await me(token)).id).toBe(user.id);

        const deactivated = await userAction(user.id, 'deactivate');
        expect(deactivated.statusCode, deactivated.body).toBe(200);
        expect(deactivated.json<UserView>().deactivated).toBe(true);

        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'user deactivated');
        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/templates' }), 'user deactivated');
        // Its right password answers as a wrong one would (L6): no oracle for a deactivated account's password.
        expectUnauthenticated(await signIn('leaving-bot', passwordOf('leaving-bot')), 'invalid identifier or password');
      });

      it('lets a reactivated user sign in again', async () => {
        const { user } = await serviceAccount('returning-bot', ['default']);
        expect((await userAction(user.id, 'deactivate')).statusCode).toBe(200);
        expectUnauthenticated(await signIn('returning-bot', passwordOf('returning-bot')), 'invalid identifier or password');

        const reactivated = await userAction(user.id, 'reactivate');
        expect(reactivated.statusCode, reactivated.body).toBe(200);
        expect(reactivated.json<UserView>().deactivated).toBe(false);
        expect((await me(await tokenFor('returning-bot', passwordOf('returning-bot')))).id).toBe(user.id);
      });

      it('refuses every earlier token once the sessions are revoked, and accepts a new sign-in', async () => {
        const { user, token: first } = await serviceAccount('revoked-bot', ['default']);
        const second = await tokenFor('revoked-bot', passwordOf('revoked-bot'));
        expect((await me(second)).id).toBe(user.id);

        const revoked = await userAction(user.id, 'revoke_sessions');
        expect(revoked.statusCode, revoked.body).toBe(200);

        expectUnauthenticated(await as(first, { method: 'GET', url: '/api/auth/me' }), "token revoked: the user's sessions were revoked");
        expectUnauthenticated(await as(second, { method: 'GET', url: '/api/auth/me' }), "token revoked: the user's sessions were revoked");
        expect((await me(await tokenFor('revoked-bot', passwordOf('revoked-bot')))).id).toBe(user.id);
      });

      it('ends the session of the bearer token at logout, and only that one', async () => {
        const { user, token } = await serviceAccount('logout-bot', ['default']);
        const other = await tokenFor('logout-bot', passwordOf('logout-bot'));

        const response = await as(token, { method: 'POST', url: '/api/auth/logout' });
        expect(response.statusCode, response.body).toBe(204);

        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'token revoked: the session has ended');
        expect((await me(other)).id).toBe(user.id);
      });

      it('does not let a refresh cookie with a forged secret end a session at logout', async () => {
        const { user, token } = await serviceAccount('bystander-bot', ['default']);
        const { sessionId } = await me(token);
        const response = await call({
          method: 'POST',
          url: '/api/auth/logout',
          headers: { cookie: `il_refresh=${sessionId ?? ''}.forged-secret` },
        });
        expect(response.statusCode, response.body).toBe(204);
        expect((await me(token)).id).toBe(user.id);
      });

      it('refuses user administration to anyone but super', async () => {
        const { user, token } = await serviceAccount('meddling-bot', ['infra']);
        expectProblem(await userAction(user.id, 'deactivate', token), 'FORBIDDEN', 'missing permission user:admin');
        expectProblem(await patchUser(user.id, { roles: ['super'] }, token), 'FORBIDDEN', 'missing permission user:admin');
      });
    });

    describe('when guests sign in', () => {
      let guestProvider: AuthProviderView;
      let guestToken: string;
      let cookie: string;
      const guestLogin = (headers: Record<string, string> = {}) => call({ method: 'POST', url: '/api/auth/guest/login', headers });
      const refresh = (value: string, headers: Record<string, string> = {}) =>
        call({ method: 'POST', url: '/api/auth/refresh', headers: { cookie: `il_refresh=${value}`, ...headers } });

      async function loginAsGuest(): Promise<{ token: string; cookie: string }> {
        const response = await guestLogin();
        expect(response.statusCode, response.body).toBe(200);
        const { token } = response.json<IssuedTokenBody>();
        const value = cookieValueOf(setCookieOf(response));
        credentials.add(token).add(value);
        return { token, cookie: value };
      }

      it('refuses guest sign-in while no guest provider exists', async () => {
        expectUnauthenticated(await guestLogin(), 'guest sign-in is disabled');
      });

      it('signs in the shared guest with the role of the enabled provider, and sets the refresh cookie', async () => {
        guestProvider = await createProvider({ name: 'Guests', type: 'guest', configuration: { role: 'infra' } });
        expect(guestProvider.enabled).toBe(true);

        const response = await guestLogin();
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        const body = response.json<IssuedTokenBody>();
        expect(body.expiresAt).toMatch(ISO);
        const setCookie = setCookieOf(response);
        expect(setCookie).toMatch(/^il_refresh=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}; Path=\/api\/auth; HttpOnly; SameSite=Strict(; |$)/);
        guestToken = body.token;
        cookie = cookieValueOf(setCookie);
        credentials.add(guestToken).add(cookie);

        const guest = await me(guestToken);
        expect(guest).toMatchObject({
          kind: 'guest',
          identifier: 'guest',
          roles: ['infra'],
          method: 'guest',
          sessionId: cookie.split('.')[0],
        });
        expect(guest.permissions).toEqual(effectivePermissions(['infra'], []));
      });

      it('rotates the refresh cookie and issues a new token for the same session', async () => {
        const response = await refresh(cookie);
        expect(response.statusCode, response.body).toBe(200);
        const { token } = response.json<IssuedTokenBody>();
        const rotated = cookieValueOf(setCookieOf(response));
        credentials.add(token).add(rotated);
        expect(token).not.toBe(guestToken);
        expect(rotated).not.toBe(cookie);
        expect(rotated.split('.')[0]).toBe(cookie.split('.')[0]);
        expect(setCookieOf(response)).toMatch(/; Path=\/api\/auth; HttpOnly; SameSite=Strict/);
        expect((await me(token)).sessionId).toBe(cookie.split('.')[0]);

        // The first cookie again: someone holds a copy, so the whole session ends.
        const reused = await refresh(cookie);
        expectUnauthenticated(reused, 'refresh token reused: the session was ended for safety; sign in again');
        expect(setCookieOf(reused)).toMatch(/^il_refresh=; .*Max-Age=0/);

        expectUnauthenticated(await refresh(rotated), 'the session has ended; sign in again');
        expectUnauthenticated(await as(token, { method: 'GET', url: '/api/auth/me' }), 'token revoked: the session has ended');
        expectUnauthenticated(await as(guestToken, { method: 'GET', url: '/api/auth/me' }), 'token revoked: the session has ended');
      });

      it('refuses a refresh without a cookie', async () => {
        expectUnauthenticated(await call({ method: 'POST', url: '/api/auth/refresh' }), 'no session: sign in again');
        expectUnauthenticated(await refresh('not-a-session'), 'no session: sign in again');
      });

      it('refuses cookie endpoints called from another site', async () => {
        const session = await loginAsGuest();
        const origin = new URL(h.services.config.BASE_URL).origin;
        const crossSite = `cross-origin request refused (Origin https://evil.example is not ${origin})`;
        expectProblem(await refresh(session.cookie, { origin: 'https://evil.example' }), 'FORBIDDEN', crossSite);
        expectProblem(await guestLogin({ origin: 'https://evil.example' }), 'FORBIDDEN', crossSite);
        expectProblem(
          await call({
            method: 'POST',
            url: '/api/auth/logout',
            headers: { origin: 'https://evil.example', cookie: `il_refresh=${session.cookie}` },
          }),
          'FORBIDDEN',
          crossSite,
        );
        // Nothing happened to the session: the same cookie still refreshes from our own origin.
        const same = await refresh(session.cookie, { origin });
        expect(same.statusCode, same.body).toBe(200);
        credentials.add(same.json<IssuedTokenBody>().token).add(cookieValueOf(setCookieOf(same)));
      });

      it('ends the session of the refresh cookie at logout', async () => {
        const session = await loginAsGuest();
        const response = await call({ method: 'POST', url: '/api/auth/logout', headers: { cookie: `il_refresh=${session.cookie}` } });
        expect(response.statusCode, response.body).toBe(204);
        expect(setCookieOf(response)).toMatch(/^il_refresh=; Path=\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=0/);
        expectUnauthenticated(await as(session.token, { method: 'GET', url: '/api/auth/me' }), 'token revoked: the session has ended');
        expectUnauthenticated(await refresh(session.cookie), 'the session has ended; sign in again');
      });

      it('refuses guest sign-in again once the provider is disabled', async () => {
        await providerAction(guestProvider.id, 'disable');
        expectUnauthenticated(await guestLogin(), 'guest sign-in is disabled');
      });
    });

    describe('when personal access tokens are used over HTTP', () => {
      let patProvider: AuthProviderView;
      let owner: { user: UserView; token: string };
      let pat: string;
      const createPat = (token: string, payload: Body) => as(token, { method: 'POST', url: '/api/personal_access_tokens', payload });

      async function newPat(name: string): Promise<string> {
        const response = await createPat(owner.token, { name, expiresInDays: 30 });
        expect(response.statusCode, response.body).toBe(201);
        const { token } = response.json<{ token: string }>();
        credentials.add(token);
        return token;
      }

      beforeAll(async () => {
        owner = await serviceAccount('pat-owner', ['default']);
      });

      it('refuses to create one while no personal_access_token provider is enabled', async () => {
        expectProblem(
          await createPat(owner.token, { name: 'ci', expiresInDays: 30 }),
          'FEATURE_DISABLED',
          'personal access tokens are disabled: enable the personal_access_token provider',
        );
      });

      it('creates one for a default service account, shown once and kept out of caches', async () => {
        patProvider = await createProvider({
          name: 'Personal access tokens',
          type: 'personal_access_token',
          configuration: { maxLifetimeDays: 30 },
        });
        const response = await createPat(owner.token, { name: 'ci deploys', expiresInDays: 30 });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.headers['cache-control']).toBe('no-store');
        const body = response.json<{ id: string; name: string; token: string; expiresAt: string; createdAt: string }>();
        expect(body).toEqual({
          id: expect.stringMatching(UUID) as unknown,
          name: 'ci deploys',
          token: expect.stringMatching(/^ilpat_[0-9A-Za-z]{39}$/) as unknown,
          expiresAt: expect.stringMatching(ISO) as unknown,
          createdAt: expect.stringMatching(ISO) as unknown,
        });
        expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(30 * 86_400_000);
        pat = body.token;
        credentials.add(pat);
      });

      it("refuses a lifetime beyond the provider's maxLifetimeDays", async () => {
        const message = "at most 30 (the provider's maxLifetimeDays)";
        expectProblem(await createPat(owner.token, { name: 'too long', expiresInDays: 31 }), 'VALIDATION', 'invalid body: expiresInDays', [
          { field: 'expiresInDays', message },
        ]);
      });

      it('authenticates its owner with the token as bearer', async () => {
        const listed = await as(pat, { method: 'GET', url: '/api/templates' });
        expect(listed.statusCode, listed.body).toBe(200);
        expect(await me(pat)).toMatchObject({
          id: owner.user.id,
          identifier: 'pat-owner',
          method: 'personal_access_token',
          sessionId: null,
          roles: ['default'],
        });
      });

      it('does not let a token create further tokens', async () => {
        expectProblem(
          await createPat(pat, { name: 'offspring', expiresInDays: 1 }),
          'FORBIDDEN',
          'a personal access token cannot create personal access tokens; sign in to create one',
        );
      });

      it('lists the owner tokens with when they were last used, and never the token', async () => {
        const response = await as(owner.token, { method: 'GET', url: '/api/personal_access_tokens' });
        expect(response.statusCode, response.body).toBe(200);
        const views = response.json<PersonalAccessTokenView[]>();
        expect(views).toEqual([
          {
            id: expect.stringMatching(UUID) as unknown,
            name: 'ci deploys',
            expiresAt: expect.stringMatching(ISO) as unknown,
            lastUsedAt: expect.stringMatching(ISO) as unknown,
            revokedAt: null,
            revision: 1,
            createdAt: expect.stringMatching(ISO) as unknown,
            updatedAt: expect.stringMatching(ISO) as unknown,
          },
        ]);
        expect(response.body).not.toContain(pat);
        expect(response.body).not.toContain('ilpat_');
      });

      it('refuses a revoked token on its next use', async () => {
        const [view] = (await as(owner.token, { method: 'GET', url: '/api/personal_access_tokens' })).json<PersonalAccessTokenView[]>();
        const revoked = await as(owner.token, { method: 'DELETE', url: `/api/personal_access_tokens/${view?.id ?? ''}` });
        expect(revoked.statusCode, revoked.body).toBe(204);
        expectUnauthenticated(await as(pat, { method: 'GET', url: '/api/templates' }), 'personal access token revoked');
      });

      it('refuses a token with a typo as malformed', async () => {
        const valid = await newPat('typo source');
        const at = 10;
        const typo = `${valid.slice(0, at)}${valid[at] === 'x' ? 'y' : 'x'}${valid.slice(at + 1)}`;
        expectUnauthenticated(await as(typo, { method: 'GET', url: '/api/templates' }), 'malformed personal access token');
        expectUnauthenticated(await as('ilpat_short', { method: 'GET', url: '/api/templates' }), 'malformed personal access token');
      });

      it('revokes every token when the provider is disabled: enabling it again revives none (L3)', async () => {
        const valid = await newPat('provider switch');
        expect((await as(valid, { method: 'GET', url: '/api/templates' })).statusCode).toBe(200);
        await providerAction(patProvider.id, 'disable');
        expectUnauthenticated(await as(valid, { method: 'GET', url: '/api/templates' }), 'personal access token revoked');
        await providerAction(patProvider.id, 'enable');
        expectUnauthenticated(await as(valid, { method: 'GET', url: '/api/templates' }), 'personal access token revoked');
        const listed = await as(owner.token, { method: 'GET', url: '/api/personal_access_tokens' });
        expect(listed.json<PersonalAccessTokenView[]>().find((t) => t.name === 'provider switch')?.revokedAt).toMatch(ISO);
        // A token made after the re-enable works.
        expect((await as(await newPat('after the switch'), { method: 'GET', url: '/api/templates' })).statusCode).toBe(200);
      });

      it("revokes a deactivated owner's tokens: reactivation revives none", async () => {
        const valid = await newPat('owner leaves');
        expect((await userAction(owner.user.id, 'deactivate')).statusCode).toBe(200);
        expectUnauthenticated(await as(valid, { method: 'GET', url: '/api/templates' }), 'personal access token revoked');
        expect((await userAction(owner.user.id, 'reactivate')).statusCode).toBe(200);
        expectUnauthenticated(await as(valid, { method: 'GET', url: '/api/templates' }), 'personal access token revoked');
      });
    });

    describe('when service accounts sign in through the deprecated endpoint', () => {
      beforeAll(async () => {
        await createUser('signing-bot', ['default']);
      });

      it('answers a token with the Deprecation and Link headers', async () => {
        const response = await signIn('signing-bot', passwordOf('signing-bot'));
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers.deprecation).toBe('true');
        expect(response.headers.link).toBe('</api/graphql>; rel="successor-version"');
        expect(response.headers['cache-control']).toBe('no-store');
        const body = response.json<IssuedTokenBody>();
        credentials.add(body.token);
        expect(body).toEqual({ token: expect.any(String) as unknown, expiresAt: expect.stringMatching(ISO) as unknown });
      });

      it('refuses a wrong password', async () => {
        expectUnauthenticated(await signIn('signing-bot', 'not-the-password'), 'invalid identifier or password');
      });

      it('refuses an unknown identifier with the same message', async () => {
        expectUnauthenticated(await signIn('nobody-at-all', 'not-the-password'), 'invalid identifier or password');
      });

      it('refuses a body without credentials as invalid', async () => {
        expectProblem(
          await call({ method: 'POST', url: '/api/auth/service_account/token', payload: { identifier: 'signing-bot' } }),
          'VALIDATION',
          'invalid body: password',
        );
      });

      it('slows repeated failures for one identifier down with 429 and Retry-After, and no other identifier', async () => {
        const address = '198.51.100.7';
        for (let attempt = 1; attempt <= 5; attempt++) {
          expectUnauthenticated(await signIn('guessed-bot', `guess-${attempt}`, address), 'invalid identifier or password');
        }
        // The harness clock moves a second per request, so the first one-second delay may pass unnoticed.
        let limited: LightMyRequestResponse | undefined;
        for (let attempt = 6; attempt <= 7 && !limited; attempt++) {
          const response = await signIn('guessed-bot', `guess-${attempt}`, address);
          if (response.statusCode === 429) limited = response;
          else expectUnauthenticated(response, 'invalid identifier or password');
        }
        expect(limited, 'a 429 by the seventh failure').toBeDefined();
        if (!limited) return;
        const problem = expectProblem(limited, 'RATE_LIMITED', /^too many sign-in attempts for this identifier; retry in \d+ s$/);
        expect(limited.headers['retry-after']).toBe(String(problem.retryAfter));
        expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expectUnauthenticated(await signIn('other-guessed-bot', 'guess', address), 'invalid identifier or password');
      });
    });

    describe('when users are created or changed with invalid input', () => {
      it('names every invalid field', async () => {
        const response = await asAdmin({
          method: 'POST',
          url: '/api/users',
          payload: {
            kind: 'human',
            identifier: 'has spaces',
            password: 'short',
            roles: ['root'],
            grants: ['template:delete'],
            nickname: 'x',
          },
        });
        expectProblem(response, 'VALIDATION', /^invalid body: /, [
          { field: 'kind', message: 'only service accounts are created here; people sign in through a provider' },
          { field: 'identifier', message: 'must be 1-100 letters, digits or . _ @ -' },
          { field: 'password', message: 'at least 12 characters' },
          { field: 'roles[0]', message: 'must be one of default, infra, super' },
          { field: 'grants[0]', message: 'must be {entity}:{read|write|admin} with a known entity' },
          { field: 'nickname', message: 'unknown field' },
        ]);
      });

      it('refuses passwords the strength estimator finds easy to guess, saying why', async () => {
        for (const [password, why] of [
          ['aaaaaaaaaaaa', /^repeats one character or a short group/],
          ['111111111111', /^repeats one character or a short group/],
          ['Password123!', /^is a common password with a few changes/],
          ['welcome12345', /^is a common password with a few changes/],
        ] as const) {
          const response = await asAdmin({
            method: 'POST',
            url: '/api/users',
            payload: { kind: 'service_account', identifier: 'weak-bot', password },
          });
          const problem = expectProblem(response, 'VALIDATION', /^invalid body: /);
          expect(
            problem.errors?.map((e) => e.field),
            password,
          ).toEqual(['password']);
          expect(problem.errors?.[0]?.message, password).toMatch(why);
        }
      });

      it('requires an identifier and a password', async () => {
        const response = await asAdmin({ method: 'POST', url: '/api/users', payload: { kind: 'service_account' } });
        const problem = expectProblem(response, 'VALIDATION', /^invalid body: /);
        expect((problem.errors ?? []).map((e) => e.field).sort()).toEqual(['identifier', 'password']);
      });

      it('refuses an identifier that is taken, whatever its case', async () => {
        await createUser('Twin-Bot', ['default']);
        const message = 'a user with the identifier "twin-bot" already exists';
        expectProblem(
          await asAdmin({
            method: 'POST',
            url: '/api/users',
            payload: { kind: 'service_account', identifier: 'twin-bot', password: passwordOf('twin-bot') },
          }),
          'NOT_UNIQUE',
          message,
          [{ field: 'identifier', message }],
        );
      });

      it('names every invalid field of a change', async () => {
        const user = await createUser('patched-bot', ['default']);
        expectProblem(
          await patchUser(user.id, { roles: ['default', 'default'], grants: ['bogus:read'], password: 'short', kind: 'human' }),
          'VALIDATION',
          /^invalid body: /,
          [
            { field: 'roles', message: 'must not repeat a role' },
            { field: 'grants[0]', message: 'must be {entity}:{read|write|admin} with a known entity' },
            { field: 'password', message: 'at least 12 characters' },
            { field: 'kind', message: 'unknown field' },
          ],
        );
      });

      it('answers 404 for a user that does not exist', async () => {
        expectProblem(await patchUser(randomUUID(), { roles: ['infra'] }), 'NOT_FOUND', 'user not found');
        expectProblem(await userAction(randomUUID(), 'deactivate'), 'NOT_FOUND', 'user not found');
      });
    });

    describe('the audit trail of identity changes', () => {
      let github: AuthProviderView;
      let user: UserView;
      let sessionId: string;

      beforeAll(async () => {
        github = await createProvider({
          name: 'GitHub',
          type: 'github',
          configuration: {
            clientId: 'Iv1.identity',
            clientSecret: GITHUB_SECRET,
            redirectUrl: 'https://catalog.example.com/api/auth/github/callback',
          },
          filterByDomain: ['example.com'],
        });
        user = await createUser('audited-bot', ['default'], [], ACCOUNT_PASSWORD);
        const patched = await patchUser(user.id, { roles: ['infra'], grants: ['audit_log:read'], password: ROTATED_PASSWORD });
        expect(patched.statusCode, patched.body).toBe(200);
        sessionId = (await me(await tokenFor('audited-bot', ROTATED_PASSWORD))).sessionId ?? '';
        expectUnauthenticated(await signIn('audited-bot', WRONG_PASSWORD), 'invalid identifier or password');
        expectUnauthenticated(await signIn('audited-bot', ACCOUNT_PASSWORD), 'invalid identifier or password');
        expect((await userAction(user.id, 'deactivate')).statusCode).toBe(200);
      });

      it('records the creation of a provider by the admin, its secret masked', async () => {
        const entries = await auditLog(adminToken, { entityId: github.id });
        expect(entries.map((e) => [e.action, e.entityType, e.actorId])).toEqual([['AuthProviderCreated', 'auth_provider', admin.id]]);
        expect(entries[0]?.changes).toMatchObject({ configuration: { clientId: 'Iv1.identity', clientSecret: MASK } });
      });

      it("records the user's creation, role and grant change, password change and deactivation, each by the admin", async () => {
        const entries = await auditLog(adminToken, { entityType: 'user', entityId: user.id });
        const byAction = new Map(entries.map((e) => [e.action, e]));
        // Deactivation also revokes the user's sessions (so reactivation cannot revive old tokens).
        expect([...byAction.keys()].sort()).toEqual([
          'UserCreated',
          'UserDeactivated',
          'UserPasswordChanged',
          'UserSessionsRevoked',
          'UserUpdated',
        ]);
        for (const entry of entries) expect(entry.actorId, entry.action).toBe(admin.id);
        expect(byAction.get('UserCreated')?.changes).toMatchObject({
          identifier: 'audited-bot',
          kind: 'service_account',
          roles: ['default'],
          grants: [],
          passwordHash: MASK,
        });
        expect(byAction.get('UserUpdated')?.changes).toEqual({ changes: { roles: ['infra'], grants: ['audit_log:read'] } });
        expect(byAction.get('UserPasswordChanged')?.changes).toEqual({ passwordHash: MASK });
        expect(byAction.get('UserDeactivated')?.changes).toEqual({});
      });

      it('records the sign-ins, the failures with their reason, and the session each success started', async () => {
        const signIns = await auditLog(adminToken, { entityType: 'sign_in', entityId: user.id });
        const succeeded = signIns.filter((e) => e.action === 'SignInSucceeded');
        const failed = signIns.filter((e) => e.action === 'SignInFailed');
        expect(succeeded.map((e) => e.changes)).toEqual([
          { userId: user.id, method: 'service_account', provider: 'svc_service_account', identifier: 'audited-bot', sessionId },
        ]);
        expect(succeeded[0]?.actorId).toBe(user.id);
        expect(failed.map((e) => e.changes)).toEqual([
          {
            userId: user.id,
            method: 'service_account',
            provider: 'svc_service_account',
            identifier: 'audited-bot',
            reason: 'invalid_credentials',
          },
          {
            userId: user.id,
            method: 'service_account',
            provider: 'svc_service_account',
            identifier: 'audited-bot',
            reason: 'invalid_credentials',
          },
        ]);
        for (const entry of failed) expect(entry.actorId).toBeNull();

        const sessions = await auditLog(adminToken, { action: 'SessionStarted', entityId: sessionId });
        expect(sessions.map((e) => [e.entityType, e.actorId])).toEqual([['session', user.id]]);
        expect(sessions[0]?.changes).toMatchObject({
          id: sessionId,
          userId: user.id,
          method: 'service_account',
          provider: 'svc_service_account',
        });
      });

      it("records the admin's own sign-in at the first start", async () => {
        const entries = await auditLog(adminToken, { action: ['SignInSucceeded', 'SessionStarted'], actorId: admin.id });
        expect(entries.map((e) => e.action).sort()).toEqual(['SessionStarted', 'SignInSucceeded']);
      });

      it('shows a default caller only the entries of catalog entities', async () => {
        const { token } = await serviceAccount('auditing-reader', ['default']);
        const entries = await auditLog(token);
        expect(entries.length).toBeGreaterThan(0);
        expect(entries.map((e) => e.action)).toContain('TemplateCreated');
        const catalog: readonly string[] = ENTITY_RESOURCES;
        for (const entry of entries) expect(catalog, `${entry.action} on ${entry.entityType}`).toContain(entry.entityType);
      });

      it('answers every read of the provider and the user with the secrets masked', async () => {
        const one = await asAdmin({ method: 'GET', url: `/api/auth_providers/${github.id}` });
        expect(one.json<AuthProviderView>().configuration).toEqual({
          clientId: 'Iv1.identity',
          clientSecret: MASK,
          redirectUrl: 'https://catalog.example.com/api/auth/github/callback',
        });
        const listed = await asAdmin({ method: 'GET', url: '/api/auth_providers' });
        expect(listed.json<AuthProviderView[]>().find((p) => p.id === github.id)?.configuration.clientSecret).toBe(MASK);
        const users = await asAdmin({ method: 'GET', url: '/api/users' });
        expect(users.statusCode).toBe(200);
        const shown = await asAdmin({ method: 'GET', url: `/api/users/${user.id}` });
        expect(shown.json<UserView>()).toMatchObject({
          identifier: 'audited-bot',
          roles: ['infra'],
          grants: ['audit_log:read'],
          deactivated: true,
        });
        expect(Object.keys(shown.json<Body>())).not.toContain('passwordHash');
      });
    });

    describe('when the last active super user would be lost', () => {
      let secondSuper: { user: UserView; token: string };

      it('refuses to deactivate admin while it is the only super user', async () => {
        expectProblem(await userAction(admin.id, 'deactivate'), 'LAST_SUPER_ACCESS', LAST_SUPER);
        expect((await me(adminToken)).roles).toEqual(['super']);
      });

      it('refuses to demote admin while it is the only super user, and lets it keep super among other roles', async () => {
        expectProblem(await patchUser(admin.id, { roles: ['infra'] }), 'LAST_SUPER_ACCESS', LAST_SUPER);
        expectProblem(await patchUser(admin.id, { roles: [] }), 'LAST_SUPER_ACCESS', LAST_SUPER);
        const kept = await patchUser(admin.id, { roles: ['super', 'infra'] });
        expect(kept.statusCode, kept.body).toBe(200);
        const back = await patchUser(admin.id, { roles: ['super'] });
        expect(back.statusCode, back.body).toBe(200);
      });

      it('does not count a deactivated super user as the other one', async () => {
        const dormant = await createUser('dormant-super', ['super']);
        expect((await userAction(dormant.id, 'deactivate')).statusCode).toBe(200);
        expectProblem(await userAction(admin.id, 'deactivate'), 'LAST_SUPER_ACCESS', LAST_SUPER);
      });

      it('allows both once a second super user exists', async () => {
        secondSuper = await serviceAccount('second-super', ['super']);
        const second = secondSuper.token;

        const demoted = await patchUser(admin.id, { roles: ['infra'] });
        expect(demoted.statusCode, demoted.body).toBe(200);
        expect((await me(adminToken)).permissions).not.toContain('user:admin');
        expect((await patchUser(admin.id, { roles: ['super'] }, second)).statusCode).toBe(200);

        const deactivated = await userAction(admin.id, 'deactivate', second);
        expect(deactivated.statusCode, deactivated.body).toBe(200);
        expectUnauthenticated(await as(adminToken, { method: 'GET', url: '/api/auth/me' }), 'user deactivated');
        expect((await userAction(admin.id, 'reactivate', second)).statusCode).toBe(200);

        // The rest of the file signs in as admin afresh rather than relying on the old token.
        adminToken = await tokenFor('admin', ADMIN_PASSWORD);
        expect((await me(adminToken)).roles).toEqual(['super']);
      });

      it('keeps one super user when the last two demote themselves at the same moment', async () => {
        // admin and second-super are the only active super users now.
        const [mine, theirs] = await Promise.all([
          patchUser(admin.id, { roles: ['infra'] }, adminToken),
          patchUser(secondSuper.user.id, { roles: ['infra'] }, secondSuper.token),
        ]);
        expect([mine.statusCode, theirs.statusCode].sort()).toEqual([200, 409]);
        expectProblem(mine.statusCode === 409 ? mine : theirs, 'LAST_SUPER_ACCESS', LAST_SUPER);
      });
    });

    describe('secrets', () => {
      it('never appear in any response of this file, nor password hashes', () => {
        expect(responses.length).toBeGreaterThan(100);
        for (const secret of [GITHUB_SECRET, ACCOUNT_PASSWORD, ROTATED_PASSWORD, WRONG_PASSWORD, ADMIN_PASSWORD, String(signingJwk.d)]) {
          expect(
            responses.filter((r) => r.includes(secret)),
            secret,
          ).toEqual([]);
        }
        expect(responses.filter((r) => r.includes('scrypt$'))).toEqual([]);
      });

      it('never appear in a log line, nor any bearer token, Authorization header or refresh cookie', () => {
        expect(logs).toContain('incoming request');
        for (const secret of [
          GITHUB_SECRET,
          ACCOUNT_PASSWORD,
          ROTATED_PASSWORD,
          WRONG_PASSWORD,
          ADMIN_PASSWORD,
          String(signingJwk.d),
          'scrypt$',
        ]) {
          expect(logs.includes(secret), secret).toBe(false);
        }
        expect(credentials.size).toBeGreaterThan(20);
        for (const credential of credentials) expect(logs.includes(credential), credential).toBe(false);
        expect(logs).not.toMatch(/Bearer\s+[A-Za-z0-9_-]{8,}/);
        expect(logs).not.toMatch(/il_refresh=[0-9a-f]/);
      });
    });
  });
}
