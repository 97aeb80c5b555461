import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/delivery/signature.js';
import { createPgPool } from '../../src/storage/pool.js';
import { databaseTargets, type DatabaseTarget, type TestDatabase } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { startReceiver, until } from '../support/receiver.js';
import { readAllCommitted } from '../support/spine.js';

/**
 * Webhooks (docs/contract.md §9) against a receiver this test runs on 127.0.0.1: every matching
 * event arrives, signed, in log order, through restarts of the service (and, on PostgreSQL, a
 * change of replica); a failing target is retried, dead-lettered and re-driven; private targets are
 * refused where the operator has not allowed their range.
 */

const SECRET = 'webhook-secret-0123456789abcdef-0123';
const ROTATED = 'webhook-secret-rotated-0123456789abcdef';
const FAST_RETRIES = {
  WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_TIMEOUT_MS: '2000',
};

/** The same database for each service opened on it (a restart); closed by the test, not the harness. */
const sameDatabase = (db: TestDatabase, name: DatabaseTarget['name']): DatabaseTarget => ({
  name,
  create: () => Promise.resolve({ ...db, close: () => Promise.resolve() }),
});

/** Another process's pool on the same PostgreSQL database (a second replica). */
const replicaOf = (db: TestDatabase): DatabaseTarget => ({
  name: 'postgres',
  create: () => {
    const pool = createPgPool({ connectionString: db.url ?? '', max: 4 });
    return Promise.resolve({ pool, url: db.url, close: () => pool.end() });
  },
});

for (const target of databaseTargets()) {
  describe(`webhooks on ${target.name}`, () => {
    let db: TestDatabase;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const env = { SECRET_KEY: randomBytes(32).toString('base64'), ...FAST_RETRIES };
    const open = (on: DatabaseTarget = sameDatabase(db, target.name)) => openHttpApp(on, { env, webhookPollIntervalMs: 30 });

    beforeAll(async () => {
      db = await target.create();
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver.close();
      await db.close();
    });

    const createWebhook = async (h: HttpHarness, payload: Record<string, unknown>) => {
      const response = await h.inject({ method: 'POST', url: '/api/webhooks', payload: { secret: SECRET, ...payload } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string; secret: string }>();
    };
    const createTemplate = async (h: HttpHarness, name: string) => {
      const response = await h.inject({ method: 'POST', url: '/api/templates', payload: { name, template: name } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string }>().id;
    };
    const rename = async (h: HttpHarness, id: string, description: string) => {
      const response = await h.inject({ method: 'PATCH', url: `/api/templates/${id}`, payload: { description } });
      expect(response.statusCode, response.body).toBe(200);
    };
    const delivery = async (h: HttpHarness, id: string) =>
      (await h.inject({ method: 'GET', url: `/api/webhooks/${id}/delivery` })).json<{
        state: string;
        lastError: string | null;
        attempts: number;
        delivered: number;
        position: string | null;
      }>();

    it('delivers every matching event once, signed and in log order, through two restarts and a change of replica', async () => {
      let h = await open();
      const webhook = await createWebhook(h, { name: 'ci', url: `${receiver.url}/ci`, entityKinds: ['template'] });
      expect(webhook.secret).toBe('********');
      const ids = [await createTemplate(h, 'wh_one'), await createTemplate(h, 'wh_two')];
      await rename(h, ids[0] ?? '', 'first change');
      await h.close(); // restart 1
      h = await open();
      await rename(h, ids[1] ?? '', 'second change');
      ids.push(await createTemplate(h, 'wh_three'));
      await h.close(); // restart 2
      h = await open();
      if (target.name === 'postgres') {
        // A second replica joins, takes the next write, and the first one leaves: either may deliver.
        const replica = await open(replicaOf(db));
        await rename(replica, ids[2] ?? '', 'third change');
        await h.close();
        h = replica;
      } else {
        await rename(h, ids[2] ?? '', 'third change');
      }
      const expected = (await readAllCommitted(h.services.store, { limit: 10_000 }))
        .filter((e) => e.streamId.startsWith('template-'))
        .map((e) => e.eventId);
      expect(expected).toHaveLength(6);
      const received = () => receiver.deliveries.filter((d) => d.path === '/ci');
      await until(() => received().length >= expected.length, 'six deliveries');
      expect(received().map((d) => d.event.id)).toEqual(expected);
      for (const d of received()) {
        expect(verifySignature(d.headers, d.body, SECRET, new Date())).toBe(true);
        expect(d.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
        expect(d.event).toMatchObject({
          specversion: '1.0',
          source: expect.any(String) as unknown,
          subject: `template/${d.event.data.entityId}`,
        });
      }
      expect(received().map((d) => d.event.type)).toEqual([
        'infraledger.TemplateCreated',
        'infraledger.TemplateCreated',
        'infraledger.TemplateUpdated',
        'infraledger.TemplateUpdated',
        'infraledger.TemplateCreated',
        'infraledger.TemplateUpdated',
      ]);
      expect(await delivery(h, webhook.id)).toMatchObject({ state: 'active', delivered: 6, lastError: null });
      await h.close();
    });

    it('signs with the old key beside the new one after a rotation, and never sends a secret', async () => {
      const h = await open();
      try {
        const webhook = await createWebhook(h, { name: 'secrets', url: `${receiver.url}/secrets`, entityKinds: ['secret'] });
        const patch = await h.inject({ method: 'PATCH', url: `/api/webhooks/${webhook.id}`, payload: { secret: ROTATED } });
        expect(patch.statusCode, patch.body).toBe(200);
        const created = await h.inject({
          method: 'POST',
          url: '/api/secrets',
          payload: {
            name: 'wh_secret',
            secretProvider: 'custom',
            configuration: { secrets: [{ name: 'token', value: 'sup3r-s3cret-value' }] },
          },
        });
        expect(created.statusCode, created.body).toBe(201);
        await until(() => receiver.deliveries.some((d) => d.path === '/secrets'), 'the secret event');
        const [sent] = receiver.deliveries.filter((d) => d.path === '/secrets');
        expect(sent?.body).not.toContain('sup3r-s3cret-value');
        expect(String(sent?.headers['webhook-signature']).split(' ')).toHaveLength(2);
        expect(verifySignature(sent?.headers ?? {}, sent?.body ?? '', ROTATED, new Date())).toBe(true);
        expect(verifySignature(sent?.headers ?? {}, sent?.body ?? '', SECRET, new Date())).toBe(true);
        expect(verifySignature(sent?.headers ?? {}, sent?.body ?? '', 'another-key-0123456789abcdef0123', new Date())).toBe(false);
        // A delivery replayed later than the receiver's window is refused by it.
        expect(verifySignature(sent?.headers ?? {}, sent?.body ?? '', ROTATED, new Date(Date.now() + 10 * 60_000))).toBe(false);
      } finally {
        await h.close();
      }
    });

    it('retries a failing target, dead-letters it after the last attempt, and re-drives it once it works', async () => {
      const h = await open();
      try {
        receiver.answer.set('/flaky', 500);
        const webhook = await createWebhook(h, { name: 'flaky', url: `${receiver.url}/flaky`, eventTypes: ['TemplateCreated'] });
        await createTemplate(h, 'wh_flaky');
        await until(async () => (await delivery(h, webhook.id)).state === 'dead', 'the dead state');
        expect(await delivery(h, webhook.id)).toMatchObject({ state: 'dead', attempts: 3, lastError: 'the target answered 500' });
        expect(receiver.deliveries.filter((d) => d.path === '/flaky')).toEqual([]);
        receiver.answer.delete('/flaky');
        const redrive = await h.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/actions/redrive` });
        expect(redrive.statusCode, redrive.body).toBe(200);
        await until(() => receiver.deliveries.some((d) => d.path === '/flaky'), 'the re-driven delivery');
        expect(receiver.deliveries.filter((d) => d.path === '/flaky').map((d) => d.event.type)).toEqual(['infraledger.TemplateCreated']);
        await until(async () => (await delivery(h, webhook.id)).attempts === 0, 'the attempts reset');
        expect(await delivery(h, webhook.id)).toMatchObject({ state: 'active', lastError: null });
      } finally {
        await h.close();
      }
    });

    it('refuses a private target: at once when written as an address, at delivery when a name resolves to one', async () => {
      const h = await openHttpApp(sameDatabase(db, target.name), {
        env: { ...env, WEBHOOK_ALLOWED_PRIVATE_RANGES: undefined },
        webhookPollIntervalMs: 30,
      });
      try {
        const literal = await h.inject({
          method: 'POST',
          url: '/api/webhooks',
          payload: { name: 'metadata', url: 'http://169.254.169.254/latest', secret: SECRET },
        });
        expect(literal.statusCode, literal.body).toBe(422);
        expect(literal.json<{ errors: { field: string }[] }>().errors).toEqual([expect.objectContaining({ field: 'url' })]);
        const port = new URL(receiver.url).port;
        const named = await createWebhook(h, { name: 'named', url: `http://localhost:${port}/named`, eventTypes: ['TemplateCreated'] });
        await createTemplate(h, 'wh_private');
        await until(async () => (await delivery(h, named.id)).state === 'dead', 'the refused webhook dead');
        expect((await delivery(h, named.id)).lastError).toMatch(/^refused: localhost resolves to .*WEBHOOK_ALLOWED_PRIVATE_RANGES/);
        expect(receiver.deliveries.filter((d) => d.path === '/named')).toEqual([]);
      } finally {
        await h.close();
      }
    });

    it("gives a webhook that names owners only their entities' events", async () => {
      const h = await open();
      try {
        const team = await h.inject({ method: 'POST', url: '/api/teams', payload: { name: 'wh payments' } });
        expect(team.statusCode, team.body).toBe(201);
        const teamId = team.json<{ id: string }>().id;
        const webhook = await createWebhook(h, {
          name: 'owned',
          url: `${receiver.url}/owned`,
          ownerIds: [teamId],
          entityKinds: ['template'],
        });
        const owned = await h.inject({
          method: 'POST',
          url: '/api/templates',
          payload: { name: 'wh_owned', template: 'wh_owned', ownerId: teamId },
        });
        expect(owned.statusCode, owned.body).toBe(201);
        await createTemplate(h, 'wh_unowned');
        await until(async () => (await delivery(h, webhook.id)).delivered === 1, 'the owned delivery');
        const unowned = await createTemplate(h, 'wh_unowned_later');
        await rename(h, unowned, 'still not theirs');
        await until(async () => {
          const position = (await delivery(h, webhook.id)).position;
          const head = await h.services.store.headPosition();
          return position !== null && head !== undefined && BigInt(position) >= head;
        }, 'the webhook to pass the later events');
        expect(receiver.deliveries.filter((d) => d.path === '/owned').map((d) => d.event.data.entityId)).toEqual([
          owned.json<{ id: string }>().id,
        ]);
      } finally {
        await h.close();
      }
    });

    it('lets a kind admin manage webhooks of that kind only, and nobody else', async () => {
      const h = await open();
      try {
        const reader = await h.serviceAccount('wh-reader', ['default']);
        const templateAdmin = await h.serviceAccount('wh-template-admin', ['default'], ['template:admin']);
        const post = (token: string, entityKinds: string[]) =>
          h.inject({
            method: 'POST',
            url: '/api/webhooks',
            headers: { authorization: `Bearer ${token}` },
            payload: {
              name: `wh-${entityKinds.join('-') || 'all'}-${token.slice(-6)}`,
              url: `${receiver.url}/x`,
              secret: SECRET,
              entityKinds,
            },
          });
        expect((await post(reader, ['template'])).statusCode).toBe(403);
        expect((await post(templateAdmin, ['template'])).statusCode).toBe(201);
        const secretKind = await post(templateAdmin, ['secret']);
        expect(secretKind.statusCode).toBe(403);
        expect(secretKind.json<{ detail: string }>().detail).toContain('secret:admin');
        expect((await post(templateAdmin, [])).statusCode).toBe(403);
      } finally {
        await h.close();
      }
    });
  });
}
