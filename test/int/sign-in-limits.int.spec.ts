import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/log.js';
import { openServices, type Services } from '../../src/services.js';
import { createPgPool, type SqlPool } from '../../src/storage/pool.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness, type TestClock } from '../support/http-app.js';

// The attack audit's L5 (the sign-in limiter: client addresses behind proxies, a sliding window,
// bounded and pruned state without a global wipe) and the operating issue's replicas: limits counted
// in the database, so that two replicas of one database count together. Over HTTP.

/** A clock that stands still until a test moves it (the limiter's windows are tested to the millisecond). */
interface SettableClock extends TestClock {
  set(at: number): void;
  advance(ms: number): void;
}

function settableClock(start: number): SettableClock {
  let at = start;
  return {
    now: () => new Date(at),
    peek: () => new Date(at),
    set: (next) => {
      at = next;
    },
    advance: (ms) => {
      at += ms;
    },
  };
}

/** A whole minute: the limiter's windows start on minute boundaries. */
const MINUTE = 60_000;
const START = Date.UTC(2030, 0, 1, 12, 0, 0);

interface Problem {
  readonly code: string;
  readonly detail: string;
  readonly retryAfter?: number;
}

/** A 429 naming why, with Retry-After equal to the body's retryAfter (whole seconds, at least 1). */
function expectLimited(response: LightMyRequestResponse, why: 'from this address' | 'for this identifier'): number {
  expect(response.statusCode, response.body).toBe(429);
  const problem = response.json<Problem>();
  expect(problem.detail).toMatch(new RegExp(`^too many sign-in attempts ${why}; retry in \\d+ s$`));
  expect(response.headers['retry-after']).toBe(String(problem.retryAfter));
  expect(problem.retryAfter).toBeGreaterThanOrEqual(1);
  return problem.retryAfter ?? 0;
}

/** Guest sign-in with no guest provider: counted by the address window, refused after, and cheap (no password work). */
const guestAttempt = (app: FastifyInstance, options: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: '/api/auth/guest/login', ...options });

function expectGuestRefused(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(401);
  expect(response.json<Problem>().detail).toBe('guest sign-in is disabled');
}

const passwordAttempt = (app: FastifyInstance, identifier: string, password: string, options: Partial<InjectOptions> = {}) =>
  app.inject({ method: 'POST', url: '/api/auth/service_account/token', payload: { identifier, password }, ...options });

for (const target of databaseTargets()) {
  describe(`L5: the sign-in limiter behind trusted proxies, on ${target.name}`, () => {
    let h: HttpHarness;
    const clock = settableClock(START);
    /** A client behind the proxy (the harness's requests come from 127.0.0.1, the trusted proxy). */
    const via = (client: string): Partial<InjectOptions> => ({ headers: { 'x-forwarded-for': client } });

    beforeAll(async () => {
      h = await openHttpApp(target, { clock, env: { TRUSTED_PROXIES: '127.0.0.1, ::1' } });
    });
    afterAll(async () => h.close());

    it('counts each client behind a trusted proxy on its own, and ignores X-Forwarded-For from anyone else', async () => {
      clock.set(START + 10 * MINUTE);
      for (let i = 0; i < 30; i++) expectGuestRefused(await guestAttempt(h.app, via('198.51.100.1')));
      expectLimited(await guestAttempt(h.app, via('198.51.100.1')), 'from this address');
      // Another client behind the same proxy has its own window.
      expectGuestRefused(await guestAttempt(h.app, via('198.51.100.2')));
      // A direct client cannot borrow (or spend) another's window by claiming its address.
      expectGuestRefused(await guestAttempt(h.app, { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '198.51.100.2' } }));
      expectGuestRefused(await guestAttempt(h.app, { remoteAddress: '203.0.113.5', headers: { 'x-forwarded-for': '198.51.100.1' } }));
    });

    it('slides its window: a full allowance at the end of a minute leaves none a second later', async () => {
      const client = via('198.51.100.10');
      // One attempt opens the minute, 29 come at its end.
      clock.set(START + 20 * MINUTE);
      expectGuestRefused(await guestAttempt(h.app, client));
      clock.set(START + 20 * MINUTE + 59_000);
      for (let i = 0; i < 29; i++) expectGuestRefused(await guestAttempt(h.app, client));
      expectLimited(await guestAttempt(h.app, client), 'from this address');
      // A fixed window, wherever it starts, would start afresh here and let 30 more through within
      // two seconds (the audit's 2×30); in the last minute there were already 30.
      clock.set(START + 21 * MINUTE + 500);
      const retryAfter = expectLimited(await guestAttempt(h.app, client), 'from this address');
      // Retry-After is honest: waiting that long admits the next attempt.
      clock.advance(retryAfter * 1000);
      expectGuestRefused(await guestAttempt(h.app, client));
    });

    it('backs off an identifier after 5 failures: 1 s, then 2 s, and a success forgets them', async () => {
      clock.set(START + 30 * MINUTE);
      const created = await h.inject({
        method: 'POST',
        url: '/api/users',
        payload: { kind: 'service_account', identifier: 'backoff-bot', password: 'backoff-bot-password-long' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const client = via('198.51.100.20');
      for (let i = 0; i < 5; i++) expect((await passwordAttempt(h.app, 'backoff-bot', `wrong-guess-${i}`, client)).statusCode).toBe(401);
      expect(expectLimited(await passwordAttempt(h.app, 'backoff-bot', 'wrong-guess-5', client), 'for this identifier')).toBe(1);
      // Another identifier from the same client is not slowed down.
      expect((await passwordAttempt(h.app, 'other-bot', 'wrong-guess', client)).statusCode).toBe(401);
      clock.advance(1000);
      expect((await passwordAttempt(h.app, 'backoff-bot', 'wrong-guess-6', client)).statusCode).toBe(401);
      expect(expectLimited(await passwordAttempt(h.app, 'BACKOFF-BOT', 'wrong-guess-7', client), 'for this identifier')).toBe(2);
      clock.advance(2000);
      expect((await passwordAttempt(h.app, 'backoff-bot', 'backoff-bot-password-long', client)).statusCode).toBe(200);
      expect((await passwordAttempt(h.app, 'backoff-bot', 'wrong-guess-8', client)).statusCode).toBe(401);
    });

    it('keeps an identifier slowed down through a spray of 100,001 other identifiers (no global wipe)', async () => {
      clock.set(START + 40 * MINUTE);
      const client = via('198.51.100.30');
      for (let i = 0; i < 5; i++) expect((await passwordAttempt(h.app, 'sprayed-bot', `wrong-guess-${i}`, client)).statusCode).toBe(401);
      // The spray, written straight into the limiter's table: 100,001 identifiers failing right now.
      await h.services.pool.query(
        `INSERT INTO sign_in_failures (identifier_hash, attempts, last_at) SELECT 'spray-' || n, 1, $1::bigint FROM generate_series(1, ` +
          `100001) AS n`,
        [clock.peek().getTime()],
      );
      expectLimited(await passwordAttempt(h.app, 'sprayed-bot', 'wrong-guess-5', client), 'for this identifier');
    });

    it('prunes what can no longer refuse anything: address windows after two minutes, failures after the longest delay', async () => {
      clock.set(START + 50 * MINUTE);
      for (const client of ['198.51.100.41', '198.51.100.42', '198.51.100.43']) expectGuestRefused(await guestAttempt(h.app, via(client)));
      const count = async (table: string): Promise<number> =>
        Number((await h.services.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);
      expect(await count('sign_in_address_windows')).toBeGreaterThanOrEqual(3);
      expect(await count('sign_in_failures')).toBeGreaterThan(100_000);

      clock.advance(16 * MINUTE);
      expectGuestRefused(await guestAttempt(h.app, via('198.51.100.44')));
      const windows = await h.services.pool.query<{ address: string }>('SELECT address FROM sign_in_address_windows');
      expect(windows.rows.map((r) => r.address)).toEqual(['198.51.100.44']);
      expect(await count('sign_in_failures')).toBe(0);
    });
  });

  describe(`two replicas of one database count together, on ${target.name}`, () => {
    let h: HttpHarness;
    let replica: { app: FastifyInstance; services: Services; pool?: SqlPool };
    const clock = settableClock(START);

    beforeAll(async () => {
      h = await openHttpApp(target, { clock });
      // A second service on the same database and keys, as a second replica would be (its own
      // connection pool on PostgreSQL; PGlite is one process, so the replica shares its pool).
      const pool = h.database.url === undefined ? undefined : createPgPool({ connectionString: h.database.url, max: 4 });
      // On one PGlite connection two projection runners would only take turns: the first app runs them.
      const services = await openServices(h.services.config, createLogger({ level: 'silent' }), {
        pool: pool ?? h.database.pool,
        pollIntervalMs: 20,
        now: clock.now,
        bootstrap: false,
        runProjections: pool !== undefined,
      });
      const app = await buildApp(services);
      await app.ready();
      replica = { app, services, pool };
    });
    afterAll(async () => {
      await replica.app.close();
      await replica.services.close();
      await replica.pool?.end();
      await h.close();
    });

    it('refuses the next attempt on either replica after 5 failures for one identifier split across them', async () => {
      clock.set(START + 5 * MINUTE);
      const replicas = [h.app, replica.app];
      for (const [i, app] of [h.app, replica.app, h.app, replica.app, h.app].entries()) {
        expect((await passwordAttempt(app, 'shared-bot', `wrong-guess-${i}`)).statusCode).toBe(401);
      }
      for (const app of replicas)
        expect(expectLimited(await passwordAttempt(app, 'shared-bot', 'wrong-guess-5'), 'for this identifier')).toBe(1);
    });

    it('shares the per-address window: 30 attempts split across the replicas leave none on either', async () => {
      clock.set(START + 10 * MINUTE);
      for (let i = 0; i < 30; i++)
        expectGuestRefused(await guestAttempt(i % 2 === 0 ? h.app : replica.app, { remoteAddress: '198.51.100.99' }));
      expectLimited(await guestAttempt(h.app, { remoteAddress: '198.51.100.99' }), 'from this address');
      expectLimited(await guestAttempt(replica.app, { remoteAddress: '198.51.100.99' }), 'from this address');
    });

    it('ignores X-Forwarded-For without TRUSTED_PROXIES: the socket address is the client', async () => {
      clock.set(START + 10 * MINUTE + 30_000);
      expectLimited(
        await guestAttempt(h.app, { remoteAddress: '198.51.100.99', headers: { 'x-forwarded-for': '192.0.2.1' } }),
        'from this address',
      );
    });
  });
}
