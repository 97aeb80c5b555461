import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimIdempotencyKey, idempotentCorrelationId } from '../../src/edge/idempotency.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/** Retries with `Idempotency-Key` over HTTP: the original answer again, never the command twice. */
let counter = 0;
const next = (): number => ++counter;

for (const target of databaseTargets()) {
  describe(`Idempotency-Key on ${target.name}`, () => {
    let h: HttpHarness;

    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const post = (key: string, payload: Record<string, unknown>, token?: string): Promise<LightMyRequestResponse> =>
      h.inject({
        method: 'POST',
        url: '/api/templates',
        payload,
        headers: { 'idempotency-key': key, ...(token && { authorization: `Bearer ${token}` }) },
      });
    const templateBody = () => {
      const n = next();
      return { name: `Idem ${n}`, template: `idem_${n}` };
    };
    /** An instant on the service's clock, hours before now. */
    const hoursAgo = (hours: number): string => new Date(h.clock.peek().getTime() - hours * 3_600_000).toISOString();
    const countNamed = async (name: string): Promise<number> =>
      (await h.inject({ method: 'GET', url: '/api/templates', query: { filter: JSON.stringify({ name }) } })).json<unknown[]>().length;

    it('answers a retried create with the original 201, body, ETag and Location, and creates once', async () => {
      const body = templateBody();
      const first = await post('create-1', body);
      const retry = await post('create-1', body);
      expect(first.statusCode).toBe(201);
      expect(retry.statusCode).toBe(201);
      expect(retry.json()).toEqual(first.json());
      expect(retry.headers.etag).toBe(first.headers.etag);
      expect(retry.headers.location).toBe(first.headers.location);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await countNamed(body.name)).toBe(1);
    });

    it('answers a retried refusal with the same refusal', async () => {
      const first = await post('bad-1', { name: '' });
      const retry = await post('bad-1', { name: '' });
      expect(first.statusCode).toBe(400);
      expect([retry.statusCode, retry.json()]).toEqual([400, first.json()]);
    });

    it('refuses the same key with another body with a 422', async () => {
      await post('reuse-1', templateBody());
      const other = await post('reuse-1', templateBody());
      expect(other.statusCode).toBe(422);
      expect(other.json()).toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSED',
        detail: 'this Idempotency-Key was already used for a different request (method, path or body)',
      });
    });

    it('replays a PATCH with its original answer even after the entity changed again', async () => {
      const created = (await post(`p-${next()}`, templateBody())).json<{ id: string }>();
      const patch = (key: string, description: string) =>
        h.inject({ method: 'PATCH', url: `/api/templates/${created.id}`, payload: { description }, headers: { 'idempotency-key': key } });
      const first = await patch('patch-1', 'first');
      await patch('patch-2', 'second');
      const retry = await patch('patch-1', 'first');
      expect(retry.statusCode).toBe(200);
      expect(retry.json()).toEqual(first.json());
      expect(retry.json<{ description: string }>().description).toBe('first');
    });

    it('keeps keys per caller', async () => {
      const other = await h.serviceAccount(`idem-other-${next()}`, ['infra']);
      const mine = await post('shared-key', templateBody());
      const theirs = await post('shared-key', templateBody(), other);
      expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
      expect(theirs.json<{ id: string }>().id).not.toBe(mine.json<{ id: string }>().id);
    });

    /** What a request that is running (or died) leaves: its claim, without an answer. */
    const claimOnly = async (key: string, body: Record<string, unknown>, at: Date) => {
      const caller = (await h.inject({ method: 'GET', url: '/api/auth/me' })).json<{ id: string }>().id;
      return claimIdempotencyKey(h.database.pool, { caller, key, method: 'POST', path: '/api/templates', body }, at);
    };

    it('answers 409 while the first request with the key is still running', async () => {
      const body = templateBody();
      expect((await claimOnly('running-1', body, h.clock.peek())).kind).toBe('claimed');
      const retry = await post('running-1', body);
      expect(retry.statusCode).toBe(409);
      expect(retry.headers['retry-after']).toBe('5');
      expect(await countNamed(body.name)).toBe(0);
    });

    describe('when the process died between committing and answering', () => {
      it('answers the retry from what was committed: the original 201 with the same entity, not a 409', async () => {
        const body = templateBody();
        const first = await post('crash-after-commit', body);
        // What a kill between commit and answer leaves: the claim, without an answer, for a while.
        await h.database.pool.query(
          "UPDATE idempotency_keys SET status = NULL, body = NULL, created_at = $1 WHERE key = 'crash-after-commit'",
          [hoursAgo(1)],
        );
        const retry = await post('crash-after-commit', body);
        expect(retry.statusCode, retry.body).toBe(201);
        expect(retry.json<{ id: string }>().id).toBe(first.json<{ id: string }>().id);
        expect(retry.headers.location).toBe(first.headers.location);
        expect(await countNamed(body.name)).toBe(1);
        const again = await post('crash-after-commit', body);
        expect([again.statusCode, again.json<{ id: string }>().id]).toEqual([201, first.json<{ id: string }>().id]);
      });

      it('never answers from another caller’s events planted under the derived correlation id', async () => {
        const body = templateBody();
        const caller = (await h.inject({ method: 'GET', url: '/api/auth/me' })).json<{ id: string }>().id;
        const planted = idempotentCorrelationId(caller, 'victim-key');
        const attacker = await h.serviceAccount(`idem-attacker-${next()}`, ['infra']);
        // The derived prefix is the service's: a client's header with it is ignored.
        const plantedWrite = await h.app.inject({
          method: 'POST',
          url: '/api/templates',
          payload: templateBody(),
          headers: { authorization: `Bearer ${attacker}`, 'x-correlation-id': planted },
        });
        expect(plantedWrite.statusCode).toBe(201);
        const { rows } = await h.database.pool.query<{ n: string }>('SELECT count(*) AS n FROM audit_log WHERE correlation_id = $1', [
          planted,
        ]);
        expect(Number(rows[0]?.n)).toBe(0);
        // The victim's interrupted request then runs its own command.
        expect((await claimOnly('victim-key', body, new Date(hoursAgo(1)))).kind).toBe('claimed');
        const retry = await post('victim-key', body);
        expect(retry.statusCode, retry.body).toBe(201);
        expect(retry.json<{ name: string }>().name).toBe(body.name);
      });

      it('runs the command when it never committed', async () => {
        const body = templateBody();
        expect((await claimOnly('crash-before-commit', body, new Date(hoursAgo(1)))).kind).toBe('claimed');
        const retry = await post('crash-before-commit', body);
        expect(retry.statusCode, retry.body).toBe(201);
        expect(await countNamed(body.name)).toBe(1);
        const again = await post('crash-before-commit', body);
        expect([again.statusCode, again.json()]).toEqual([201, retry.json()]);
      });
    });

    it('keeps no answer that carried a secret: a retried personal access token creation is a 409', async () => {
      await h.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: { name: `PAT ${next()}`, type: 'personal_access_token', configuration: {} },
      });
      const user = await h.serviceAccount(`pat-user-${next()}`, ['default']);
      const create = () =>
        h.inject({
          method: 'POST',
          url: '/api/personal_access_tokens',
          payload: { name: 'ci', expiresInDays: 7 },
          headers: { authorization: `Bearer ${user}`, 'idempotency-key': 'pat-1' },
        });
      const first = await create();
      const retry = await create();
      expect(first.statusCode, first.body).toBe(201);
      expect(retry.statusCode).toBe(409);
      expect(retry.body).not.toContain(first.json<{ token: string }>().token);
      const stored = await h.database.pool.query<{ body: string | null }>("SELECT body FROM idempotency_keys WHERE key = 'pat-1'");
      expect(stored.rows).toEqual([{ body: null }]);
    });

    it('refuses a malformed key, and a key on a sign-in', async () => {
      const bad = await post('with space', templateBody());
      expect(bad.statusCode).toBe(400);
      const signIn = await h.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'admin', password: 'x' },
        headers: { authorization: '', 'idempotency-key': 'k' },
      });
      expect(signIn.statusCode).toBe(400);
    });

    it('treats a key past its 24 hours as new', async () => {
      const body = templateBody();
      await post('old-key', body);
      await h.database.pool.query("UPDATE idempotency_keys SET created_at = $1 WHERE key = 'old-key'", [hoursAgo(25)]);
      const fresh = await post('old-key', templateBody());
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    });
  });
}
