import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { parsePrometheusText, seriesValue, type Family } from '../support/prometheus-text.js';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';

/** The families of one scrape, by name (the text must parse: a malformed exposition fails here). */
const parseScrape = parsePrometheusText;

const valueOf = seriesValue;

for (const target of databaseTargets()) {
  describe(`GET /metrics on ${target.name}`, () => {
    let h: HttpHarness;
    let families: Map<string, Family>;
    let text: string;

    beforeAll(async () => {
      h = await openHttpApp(target, { env: { METRICS_TOKEN } });
      // Traffic every family should see: a write, a read, a 404, a failed and a good sign-in, GraphQL with and without errors.
      const created = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Metrics', template: 'metrics' } });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ id: string }>().id;
      expect((await h.inject({ method: 'GET', url: `/api/templates/${id}` })).statusCode).toBe(200);
      expect((await h.inject({ method: 'GET', url: '/api/no-such-thing' })).statusCode).toBe(404);
      const refused = await h.app.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'admin', password: 'wrong-password-here' },
      });
      expect(refused.statusCode).toBe(401);
      await h.serviceAccount('metrics-bot', ['default']);
      const query = await h.inject({ method: 'POST', url: '/api/graphql', payload: { query: '{ templates { id name } }' } });
      expect(query.statusCode).toBe(200);
      const bad = await h.inject({ method: 'POST', url: '/api/graphql', payload: { query: '{ templates(filter: "{nope") { id } }' } });
      expect(bad.json<{ errors: unknown[] }>().errors.length).toBeGreaterThan(0);
      const scrape = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scrape.statusCode).toBe(200);
      expect(scrape.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      text = scrape.body;
      families = parseScrape(text);
    });

    afterAll(async () => {
      await h.close();
    });

    it('refuses a scrape without METRICS_TOKEN, with a wrong one, and with a user token', async () => {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${h.adminToken}`]) {
        const response = await h.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
        expect(response.body).not.toContain('infraledger_http');
      }
    });

    it('observes HTTP requests by route pattern and status, never by the URL as sent', () => {
      expect(families.get('infraledger_http_request_duration_seconds')?.type).toBe('histogram');
      expect(
        valueOf(families, 'infraledger_http_request_duration_seconds', { method: 'POST', route: '/api/templates', status_code: '201' }),
      ).toBe(1);
      expect(
        valueOf(families, 'infraledger_http_request_duration_seconds', { method: 'GET', route: '/api/templates/:id', status_code: '200' }),
      ).toBe(1);
      expect(valueOf(families, 'infraledger_http_request_duration_seconds', { route: 'unmatched', status_code: '404' })).toBe(1);
      expect(text).not.toContain('/api/no-such-thing');
    });

    it('observes GraphQL operations by type and counts their errors by code', () => {
      expect(valueOf(families, 'infraledger_graphql_operation_duration_seconds', { operation: 'query' })).toBe(2);
      expect(valueOf(families, 'infraledger_graphql_errors_total', { code: 'BAD_USER_INPUT' })).toBe(1);
    });

    it("reports each projection's position and lag, labelled by projection", () => {
      for (const name of ['resources', 'templates', 'sessions', 'audit_log']) {
        expect(valueOf(families, 'infraledger_projection_position', { projection: name })).toBeGreaterThan(0);
        expect(valueOf(families, 'infraledger_projection_lag_events', { projection: name })).toBeGreaterThanOrEqual(0);
        expect(valueOf(families, 'infraledger_projection_failed', { projection: name })).toBe(0);
      }
      expect(valueOf(families, 'infraledger_projection_batch_duration_seconds', { projection: 'templates' })).toBeGreaterThan(0);
    });

    it('counts appends and revision conflicts of the event store', () => {
      expect(valueOf(families, 'infraledger_event_store_appends_total', { outcome: 'ok' })).toBeGreaterThan(3);
      expect(valueOf(families, 'infraledger_event_store_appended_events_total', {})).toBeGreaterThan(3);
      expect(families.get('infraledger_event_store_revision_conflicts_total')?.type).toBe('counter');
    });

    it('counts sign-ins by method and outcome, with the reason of a failure and never the identifier', () => {
      // admin (the harness) and metrics-bot succeeded; the wrong password failed.
      expect(valueOf(families, 'infraledger_sign_ins_total', { method: 'service_account', outcome: 'succeeded' })).toBe(2);
      expect(
        valueOf(families, 'infraledger_sign_ins_total', { method: 'service_account', outcome: 'failed', reason: 'invalid_credentials' }),
      ).toBe(1);
      expect(text).not.toContain('metrics-bot');
      expect(text).not.toContain('wrong-password-here');
      expect(text).not.toContain(h.adminToken);
    });

    it('counts a deactivated account’s right password as the wrong password it answers as (no account-state oracle)', async () => {
      await h.serviceAccount('metrics-leaver', ['default']);
      const users = await h.inject({ method: 'GET', url: '/api/users?filter={"identifier":"metrics-leaver"}' });
      const id = users.json<{ id: string }[]>()[0]?.id ?? '';
      expect((await h.inject({ method: 'POST', url: `/api/users/${id}/actions/deactivate` })).statusCode).toBe(200);
      const scrapeFailures = async (): Promise<string> =>
        (await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
      const before = valueOf(parseScrape(await scrapeFailures()), 'infraledger_sign_ins_total', {
        method: 'service_account',
        outcome: 'failed',
        reason: 'invalid_credentials',
      });
      const refused = await h.app.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'metrics-leaver', password: 'metrics-leaver-password-long' },
      });
      expect(refused.statusCode).toBe(401);
      const after = await scrapeFailures();
      expect(
        valueOf(parseScrape(after), 'infraledger_sign_ins_total', {
          method: 'service_account',
          outcome: 'failed',
          reason: 'invalid_credentials',
        }),
      ).toBe((before ?? 0) + 1);
      expect(after).not.toContain('user_deactivated');
    });

    it('carries the process defaults: resident memory and event-loop lag', () => {
      expect(families.get('process_resident_memory_bytes')?.type).toBe('gauge');
      expect(valueOf(families, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
      expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    });

    it('counts sign-in refusals of the rate limiter', async () => {
      // 30 attempts per minute per address: the 31st from the same address is refused.
      let refusedAt = 0;
      for (let attempt = 1; attempt <= 40 && refusedAt === 0; attempt++) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/auth/service_account/token',
          payload: { identifier: `nobody-${attempt}`, password: 'not-the-password' },
        });
        if (response.statusCode === 429) refusedAt = attempt;
      }
      expect(refusedAt).toBeGreaterThan(0);
      const scrape = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(valueOf(parseScrape(scrape.body), 'infraledger_rate_limit_refusals_total', { limiter: 'sign_in' })).toBe(1);
    });
  });
}

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is off, saying how to turn it on; METRICS_PUBLIC=true opens it', async () => {
    const [target] = databaseTargets();
    if (!target) throw new Error('no database target');
    for (const [env, status] of [
      [{}, 404],
      [{ METRICS_PUBLIC: 'true' }, 200],
    ] as const) {
      const h = await openHttpApp(target, { env });
      try {
        const response = await h.app.inject({ method: 'GET', url: '/metrics' });
        expect(response.statusCode).toBe(status);
        if (status === 404) expect(response.json<{ detail: string }>().detail).toContain('metrics are off: set METRICS_TOKEN');
        else expect(parseScrape(response.body).has('infraledger_http_request_duration_seconds')).toBe(true);
      } finally {
        await h.close();
      }
    }
  });
});
