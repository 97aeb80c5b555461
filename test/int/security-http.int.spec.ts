import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSecurityHeaders } from '../../src/http/security-headers.js';
import { databaseTargets } from '../support/databases.js';
import { ADMIN_PASSWORD, openHttpApp, type HttpHarness } from '../support/http-app.js';

// The attack audit's findings on HTTP hardening (L4) and on X-Min-Position (L7), over HTTP.

const BASE_URL = 'https://infraledger.example.com';

interface GraphBody {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly { message: string; extensions: Record<string, unknown> }[];
}

for (const target of databaseTargets()) {
  describe(`security headers and X-Min-Position over HTTP on ${target.name}`, () => {
    let h: HttpHarness;

    beforeAll(async () => {
      h = await openHttpApp(target, { env: { BASE_URL } });
      const provider = await h.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: { name: 'PATs', type: 'personal_access_token', configuration: {} },
      });
      expect(provider.statusCode, provider.body).toBe(201);
      const guest = await h.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: { name: 'Guests', type: 'guest', configuration: {} },
      });
      expect(guest.statusCode, guest.body).toBe(201);
    });
    afterAll(async () => h.close());

    const graphql = (query: string, variables: Record<string, unknown> = {}, authorization: string | null = `Bearer ${h.adminToken}`) =>
      h.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: authorization === null ? {} : { authorization },
        payload: { query, variables },
      });

    describe('L4: every answer carries nosniff, and HSTS when BASE_URL is https', () => {
      it('sets both on JSON, problem, GraphQL, docs, health and unknown-route answers, signed in or not', async () => {
        const requests: (InjectOptions & { url: string })[] = [
          { method: 'GET', url: '/api/templates' },
          { method: 'GET', url: '/api/templates/00000000-0000-4000-8000-000000000000' },
          { method: 'GET', url: '/api/templates', headers: { authorization: 'Bearer nonsense' } },
          { method: 'POST', url: '/api/templates', payload: { name: 42 } },
          { method: 'GET', url: '/api/openapi.json' },
          { method: 'GET', url: '/api/docs/' },
          { method: 'GET', url: '/api/auth/.well-known/jwks.json' },
          { method: 'GET', url: '/healthz' },
          { method: 'GET', url: '/api/no-such-route' },
          { method: 'POST', url: '/api/graphql', payload: { query: '{ me { id } }' } },
        ];
        for (const request of requests) {
          const response = await h.inject(request);
          expect(response.headers['x-content-type-options'], `${request.method} ${request.url}`).toBe('nosniff');
          expect(response.headers['strict-transport-security'], `${request.method} ${request.url}`).toBe('max-age=31536000');
        }
      });

      it('sends no HSTS when BASE_URL is plain http (a bare app with the same hook)', async () => {
        const app = Fastify();
        registerSecurityHeaders(app, 'http://localhost:8080');
        app.get('/x', () => ({ ok: true }));
        const response = await app.inject({ method: 'GET', url: '/x' });
        await app.close();
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers).not.toHaveProperty('strict-transport-security');
      });
    });

    describe('L4: /api/docs has a Content-Security-Policy and cannot be framed', () => {
      it('serves the page and its assets with a self-only policy, frame-ancestors none and X-Frame-Options DENY', async () => {
        for (const url of ['/api/docs/', '/api/docs/static/index.html', '/api/docs/static/swagger-ui.css', '/api/docs/json']) {
          const response = await h.inject({ method: 'GET', url });
          expect(response.statusCode, url).toBeLessThan(400);
          const policy = String(response.headers['content-security-policy']);
          expect(policy, url).toContain("frame-ancestors 'none'");
          expect(policy, url).toContain("default-src 'self'");
          expect(policy, url).toContain("script-src 'self'");
          expect(policy, url).not.toMatch(/https?:|unsafe-inline|unsafe-eval|\*/);
          expect(response.headers['x-frame-options'], url).toBe('DENY');
        }
      });
    });

    describe('L4: no answer carrying a token may be cached', () => {
      it('REST: the service-account token, guest sign-in, refresh and a new personal access token answer no-store', async () => {
        const signIn = await h.app.inject({
          method: 'POST',
          url: '/api/auth/service_account/token',
          payload: { identifier: 'admin', password: ADMIN_PASSWORD },
        });
        expect(signIn.statusCode, signIn.body).toBe(200);
        expect(signIn.headers['cache-control']).toBe('no-store');

        const guest = await h.app.inject({ method: 'POST', url: '/api/auth/guest/login' });
        expect(guest.statusCode, guest.body).toBe(200);
        expect(guest.headers['cache-control']).toBe('no-store');
        const cookie = String(guest.headers['set-cookie']).split(';')[0] ?? '';
        const refreshed = await h.app.inject({ method: 'POST', url: '/api/auth/refresh', headers: { cookie } });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        expect(refreshed.headers['cache-control']).toBe('no-store');

        const pat = await h.inject({ method: 'POST', url: '/api/personal_access_tokens', payload: { name: 'rest', expiresInDays: 1 } });
        expect(pat.statusCode, pat.body).toBe(201);
        expect(pat.headers['cache-control']).toBe('no-store');
      });

      it('GraphQL: serviceAccountToken and createPersonalAccessToken answer no-store, as every GraphQL answer does', async () => {
        const token = await graphql(
          'mutation ($i: String!, $p: String!) { serviceAccountToken(identifier: $i, password: $p) { token expiresAt } }',
          { i: 'admin', p: ADMIN_PASSWORD },
          null,
        );
        expect(token.json<GraphBody>().errors).toBeUndefined();
        expect(token.headers['cache-control']).toBe('no-store');

        const pat = await graphql('mutation { createPersonalAccessToken(input: {name: "graphql", expiresInDays: 1}) { token } }');
        expect(pat.json<GraphBody>().errors).toBeUndefined();
        expect(pat.headers['cache-control']).toBe('no-store');

        const query = await graphql('{ me { identifier } }');
        expect(query.headers['cache-control']).toBe('no-store');
      });
    });

    describe('L7: X-Min-Position beyond the head of the event log', () => {
      let templateId: string;
      let position: string;

      beforeAll(async () => {
        const created = await h.inject({
          method: 'POST',
          url: '/api/templates',
          payload: { name: 'Min position', template: 'min_position' },
        });
        expect(created.statusCode, created.body).toBe(201);
        templateId = created.json<{ id: string }>().id;
        position = String(created.headers['x-position']);
      });

      const head = async (): Promise<string> => String(await h.services.store.lastPosition());

      it('REST: answers 400 at once naming the head, for the largest position the header takes', async () => {
        for (const beyond of ['9999999999999999999', String(BigInt(await head()) + 1n)]) {
          const response = await h.inject({ method: 'GET', url: `/api/templates/${templateId}`, headers: { 'x-min-position': beyond } });
          expect(response.statusCode, response.body).toBe(400);
          const newest = await head();
          expect(response.json()).toMatchObject({
            code: 'POSITION_AHEAD',
            detail:
              `X-Min-Position ${beyond} is beyond the newest position of the event log (${newest}); send a position an ` +
              `X-Position header returned`,
            errors: [{ field: 'X-Min-Position', message: `must not be beyond the newest position, ${newest}` }],
            head: newest,
          });
        }
      });

      it('REST: still answers a position a write returned, and the head itself', async () => {
        for (const reached of [position, await head()]) {
          const response = await h.inject({ method: 'GET', url: `/api/templates/${templateId}`, headers: { 'x-min-position': reached } });
          expect(response.statusCode, response.body).toBe(200);
        }
      });

      it('GraphQL: refuses the request before execution with BAD_USER_INPUT naming the head', async () => {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/graphql',
          headers: { authorization: `Bearer ${h.adminToken}`, 'x-min-position': '9999999999999999999' },
          payload: { query: '{ templates { id } }' },
        });
        const body = response.json<GraphBody>();
        expect(body).not.toHaveProperty('data');
        expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'POSITION_AHEAD', head: await head() });
        expect(body.errors?.[0]?.message).toMatch(
          /^X-Min-Position 9999999999999999999 is beyond the newest position of the event log \(\d+\)/,
        );
      });

      if (target.name === 'postgres') {
        it('REST: waits for, and does not refuse, a committed position an older open transaction still holds back', async () => {
          const blocker = await h.services.pool.connect();
          try {
            await blocker.query('BEGIN');
            await blocker.query('SELECT pg_current_xact_id()');
            // Committed after the blocker began: gap-free readers may not pass it until the blocker ends.
            const event = h.services.codec.encode(
              {
                type: 'SignInFailed',
                data: { userId: null, method: 'service_account', provider: null, identifier: 'held-back', reason: 'invalid_credentials' },
              },
              { actorId: null, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
              randomUUID(),
            );
            const appended = await h.services.store.append(`signin-held-${templateId}`, [event], { expectedRevision: 'no_stream' });
            const read = h.inject({
              method: 'GET',
              url: `/api/templates/${templateId}`,
              headers: { 'x-min-position': String(appended.position) },
            });
            await new Promise((resolve) => setTimeout(resolve, 200));
            await blocker.query('COMMIT');
            const response = await read;
            expect(response.statusCode, response.body).toBe(200);
          } finally {
            blocker.release();
          }
        });
      }
    });
  });
}
