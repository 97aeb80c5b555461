import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/storage/pool.js';
import type { ChangeFeed } from '../../src/read/change-feed.js';
import { collect, rawSocket, wsClient, type Received } from '../support/graphql-ws.js';
import { databaseTargets, type DatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

const CHANGES =
  'subscription ($types: [String!], $after: String) { changes(entityTypes: $types, after: $after) { position entityType entityId ' +
  'action at actor { identifier } } }';

const changesOf = (items: readonly Received[]): Json[] => items.flatMap((item) => ('data' in item ? [item.data.changes as Json] : []));
const positionsOf = (items: readonly Received[]): bigint[] => changesOf(items).map((change) => BigInt(change.position as string));

/** Subscriptions over real WebSockets on a listening app (graphql-ws, subprotocol graphql-transport-ws). */
for (const target of databaseTargets()) {
  describe(`GraphQL subscriptions on ${target.name}`, () => {
    const secretKey = randomBytes(32).toString('base64');
    const env = {
      SECRET_KEY: secretKey,
      SUBSCRIPTION_AUTH_RECHECK_MS: '200',
      SUBSCRIPTION_MAX_CONNECTIONS: '3',
      SUBSCRIPTION_MAX_PER_CALLER: '3',
      SUBSCRIPTION_INIT_TIMEOUT_MS: '1000',
      SUBSCRIPTION_MAX_PENDING_PER_ADDRESS: '6',
    };
    let harness: HttpHarness;
    let baseUrl: string;

    const gql = async (query: string, variables: Json = {}, token = harness.adminToken): Promise<Json> => {
      const response = await harness.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { authorization: `Bearer ${token}` },
        payload: { query, variables },
      });
      const body = response.json<{ data?: Json; errors?: unknown[] }>();
      expect(body.errors, response.body).toBeUndefined();
      return body.data as Json;
    };
    /** Resolves once `holds` is true of the feed, looking again each time a listener starts or goes. */
    const feedUntil = async (feed: ChangeFeed, holds: () => boolean): Promise<void> => {
      if (holds()) return;
      await new Promise<void>((resolve) => {
        const look = (): void => {
          if (!holds()) return;
          feed.progress.off('listeners', look);
          resolve();
        };
        feed.progress.on('listeners', look);
      });
    };
    /** Resolves once `count` subscriptions know their starting point: a write from then on reaches them. */
    const listening = (count: number, feed = harness.services.changes): Promise<void> => feedUntil(feed, () => feed.listening >= count);
    /** Resolves once no subscription is left on the feed (each test starts from none). */
    const drained = (feed = harness.services.changes): Promise<void> => feedUntil(feed, () => feed.size === 0);
    let seq = 0;
    const createTemplate = async (): Promise<string> => {
      seq += 1;
      const data = await gql('mutation ($input: TemplateCreateInput!) { createTemplate(input: $input) { id } }', {
        input: { name: `sub template ${seq}`, template: `sub_template_${seq}` },
      });
      return (data.createTemplate as { id: string }).id;
    };

    /** What the service logged (JSON lines), to see how it logs a client's mistakes. */
    const logged: string[] = [];
    const logSink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(
          ...chunk
            .toString()
            .split('\n')
            .filter((line) => line !== ''),
        );
        done();
      },
    });

    beforeAll(async () => {
      harness = await openHttpApp(target, { env, logDestination: logSink });
      baseUrl = await harness.app.listen({ host: '127.0.0.1', port: 0 });
    }, 60_000);
    afterEach(() => drained());
    afterAll(() => harness.close());

    it('delivers a write as a change, with the actor, to a signed-in subscriber', async () => {
      const client = wsClient(baseUrl, harness.adminToken);
      const received = collect(client, CHANGES, { types: ['template'] });
      await listening(1);
      const id = await createTemplate();
      const [item] = await received.waitFor(1);
      expect(changesOf([item as Received])[0]).toMatchObject({
        entityType: 'template',
        entityId: id,
        action: 'TemplateCreated',
        actor: { identifier: 'admin' },
      });
      expect(changesOf([item as Received])[0]?.position).toMatch(/^\d+$/);
      received.unsubscribe();
      await client.dispose();
    });

    it('replays every change after a position while writers run, then goes live: no gap, no duplicate', async () => {
      const live = wsClient(baseUrl, harness.adminToken);
      const all = collect(live, CHANGES, { types: ['template'] });
      await listening(1);
      const first = await createTemplate();
      await all.waitFor(1);
      const after = changesOf(all.items)[0]?.position as string;
      expect(changesOf(all.items)[0]?.entityId).toBe(first);
      // Writers run while the resuming subscriber connects and replays.
      const writers = Promise.all(Array.from({ length: 12 }, () => createTemplate()));
      const resumer = wsClient(baseUrl, harness.adminToken);
      const resumed = collect(resumer, CHANGES, { types: ['template'], after });
      await writers;
      const more = Promise.all(Array.from({ length: 4 }, () => createTemplate()));
      await more;
      await all.waitFor(17);
      await resumed.waitFor(16);
      const expected = positionsOf(all.items).slice(1);
      expect(positionsOf(resumed.items)).toEqual(expected);
      expect(expected.every((position, i) => i === 0 || position > (expected[i - 1] ?? position))).toBe(true);
      await live.dispose();
      await resumer.dispose();
    });

    it('keeps to what the caller may read (the audit log rules)', async () => {
      const developer = await harness.serviceAccount('sub-developer', ['default']);
      const client = wsClient(baseUrl, developer);
      const received = collect(client, 'subscription { changes { entityType action } }');
      await listening(1);
      await gql(
        'mutation { createUser(input: {kind: "service_account", identifier: "sub-hidden", password: "sub-hidden-password"}) { id } }',
      );
      await createTemplate();
      // Changes arrive in position order: had the user's creation reached this caller, it would be first.
      await received.waitFor(1);
      expect(changesOf(received.items).map((change) => change.entityType)).toEqual(['template']);
      await client.dispose();
    });

    it('refuses a connection without a token or with a bad one (close 4401)', async () => {
      for (const token of [undefined, 'not-a-token']) {
        const closed = new Promise<number>((resolve) => {
          wsClient(baseUrl, token, { lazy: false, onClose: (code) => resolve(code) });
        });
        expect(await closed).toBe(4401);
      }
    });

    it('ends a subscription within seconds once its session is revoked (logout)', async () => {
      const signIn = await harness.app.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'admin', password: 'test-admin-password-1' },
      });
      const token = signIn.json<{ access_token?: string; token?: string }>();
      const bearer = token.access_token ?? token.token ?? '';
      expect(bearer).not.toBe('');
      const client = wsClient(baseUrl, bearer);
      const received = collect(client, CHANGES, { types: ['template'] });
      await listening(1);
      const logout = await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${bearer}` } });
      expect(logout.statusCode).toBe(204);
      const [ended] = await received.waitFor(1, 10_000);
      expect(ended).toHaveProperty('error');
      expect(JSON.stringify(ended)).toContain('UNAUTHENTICATED');
      await client.dispose();
      // Every subscription so far has ended: none is left listening to the feed.
      await drained();
    });

    it('closes a caller’s connection beyond SUBSCRIPTION_MAX_CONNECTIONS with 4429; other callers are not counted', async () => {
      const caller = await harness.serviceAccount('sub-many-connections', ['default']);
      const clients = Array.from({ length: 3 }, () => wsClient(baseUrl, caller));
      const subscribed = clients.map((client) => collect(client, CHANGES));
      await listening(3);
      const closed = new Promise<[number, string]>((resolve) => {
        wsClient(baseUrl, caller, { lazy: false, onClose: (code, reason) => resolve([code, reason]) });
      });
      expect(await closed).toEqual([4429, 'at most 3 subscription connections per caller are open at once']);
      // Another caller still connects and subscribes.
      const other = wsClient(baseUrl, harness.adminToken);
      collect(other, CHANGES);
      await listening(4);
      for (const item of subscribed) item.unsubscribe();
      for (const client of [...clients, other]) await client.dispose();
    });

    it('ends a caller’s subscription beyond SUBSCRIPTION_MAX_PER_CALLER with RATE_LIMITED; the others keep running', async () => {
      const caller = await harness.serviceAccount('sub-many-subscriptions', ['default']);
      const client = wsClient(baseUrl, caller);
      const running = Array.from({ length: 3 }, () => collect(client, CHANGES, { types: ['template'] }));
      await listening(3);
      const refused = collect(client, CHANGES);
      const [ended] = await refused.waitFor(1);
      expect(JSON.stringify(ended)).toContain('RATE_LIMITED');
      expect(JSON.stringify(ended)).toContain('at most 3 subscriptions per caller are open at once');
      const id = await createTemplate();
      for (const item of running) {
        const [change] = await item.waitFor(1);
        expect(changesOf([change as Received])[0]).toMatchObject({ entityId: id });
      }
      await client.dispose();
    });

    it('refuses a bad after with BAD_USER_INPUT', async () => {
      const client = wsClient(baseUrl, harness.adminToken);
      const received = collect(client, CHANGES, { after: 'yesterday' });
      const [ended] = await received.waitFor(1);
      expect(JSON.stringify(ended)).toContain('BAD_USER_INPUT');
      await client.dispose();
    });

    it('refuses a subscription of 2,500 aliases before it runs, and one over SUBSCRIPTION_MAX_COST', async () => {
      const aliases = Array.from({ length: 2500 }, (_, i) => `a${i}: actor { id }`).join(' ');
      const client = wsClient(baseUrl, harness.adminToken);
      const refused = collect(client, `subscription { changes(after: "0") { position ${aliases} } }`);
      const [ended] = await refused.waitFor(1);
      expect(JSON.stringify(ended)).toContain('LIMIT_EXCEEDED');
      expect(JSON.stringify(ended)).toContain('query uses 2500 aliases; the maximum is 30 (GRAPHQL_MAX_ALIASES)');
      const costly = collect(
        client,
        `subscription { changes { ${Array.from({ length: 25 }, (_, i) => `a${i}: actor { id identifier name }`).join(' ')} } }`,
      );
      const [tooCostly] = await costly.waitFor(1);
      expect(JSON.stringify(tooCostly)).toContain('per change exceeds the maximum of 100 (SUBSCRIPTION_MAX_COST)');
      // Nothing was started for either.
      expect(harness.services.changes.size).toBe(0);
      await client.dispose();
    });

    it('validates a subscription as a query: unknown fields, undefined variables and two root fields are refused', async () => {
      const client = wsClient(baseUrl, harness.adminToken);
      for (const [document, message] of [
        ['subscription { changes { position secret } }', 'Cannot query field \\"secret\\" on type \\"Change\\".'],
        ['subscription { changes(after: $after) { position } }', 'Variable \\"$after\\" is not defined.'],
        [
          'subscription { changes { position } runLog(runId: "00000000-0000-4000-8000-000000000000") { sequence } }',
          'must select only one top level field',
        ],
      ] as const) {
        const [ended] = await collect(client, document).waitFor(1);
        expect(JSON.stringify(ended)).toContain('GRAPHQL_VALIDATION_FAILED');
        expect(JSON.stringify(ended)).toContain(message);
      }
      expect(harness.services.changes.size).toBe(0);
      await client.dispose();
    });

    it('refuses an after beyond the newest position with BAD_USER_INPUT naming it, and logs it below level error', async () => {
      const client = wsClient(baseUrl, harness.adminToken);
      const [ended] = await collect(client, CHANGES, { after: '9000000000000000000' }).waitFor(1);
      expect(JSON.stringify(ended)).toContain('POSITION_AHEAD');
      expect(JSON.stringify(ended)).toContain('after 9000000000000000000 is beyond the newest position of the event log');
      await client.dispose();
      // A client's mistake is not the service's error: nothing at level error (50) or above, no key "0".
      const errors = logged
        .map((line) => JSON.parse(line) as { level: number; [key: string]: unknown })
        .filter((entry) => entry.level >= 50);
      expect(errors).toEqual([]);
    });

    it('closes a deactivated user’s socket (4401) and runs no new subscription on it, even one sent at once', async () => {
      const token = await harness.serviceAccount('sub-deactivated', ['default']);
      const me = await harness.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
      const userId = me.json<{ id: string }>().id;
      await createTemplate();
      const socket = await rawSocket(baseUrl);
      socket.send({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } });
      await socket.until((message) => message.type === 'connection_ack');
      const running = collect(wsClient(baseUrl, token), CHANGES, { types: ['template'] });
      await listening(1);
      expect((await harness.inject({ method: 'POST', url: `/api/users/${userId}/actions/deactivate` })).statusCode).toBe(200);
      // Replaying from the start would deliver every template change so far to the old principal.
      socket.send({ id: 'after-deactivation', type: 'subscribe', payload: { query: CHANGES, variables: { after: '0' } } });
      const [code, reason] = await socket.closed;
      expect(code).toBe(4401);
      expect(reason).toContain('Not authenticated');
      expect(socket.messages.filter((message) => message.type === 'next')).toEqual([]);
      const [ended] = await running.waitFor(1);
      expect(JSON.stringify(ended)).toMatch(/UNAUTHENTICATED|4401/);
      await drained();
    });

    it('closes a socket whose caller lost a permission (a role removed): 4403', async () => {
      const token = await harness.serviceAccount('sub-demoted', ['infra']);
      const me = await harness.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
      const userId = me.json<{ id: string }>().id;
      let closed!: (value: [number, string]) => void;
      const closing = new Promise<[number, string]>((resolve) => (closed = resolve));
      const client = wsClient(baseUrl, token, { onClose: (code, reason) => closed([code, reason]) });
      collect(client, CHANGES, { types: ['template'] });
      await listening(1);
      const demoted = await harness.inject({ method: 'PATCH', url: `/api/users/${userId}`, payload: { roles: ['default'] } });
      expect(demoted.statusCode, demoted.body).toBe(200);
      const [code, reason] = await closing;
      expect(code).toBe(4403);
      expect(reason).toContain('lost a permission');
      await client.dispose();
      await drained();
    });

    it('closes a socket that does not sign in within SUBSCRIPTION_INIT_TIMEOUT_MS (4408)', async () => {
      const socket = await rawSocket(baseUrl);
      expect(await socket.closed).toEqual([4408, 'Connection initialisation timeout']);
    });

    it('closes a socket whose message the input gate refuses (4400), before the document is parsed', async () => {
      for (const [message, reason] of [
        [
          {
            id: 'deep',
            type: 'subscribe',
            payload: { query: `subscription { changes(entityTypes: ${'['.repeat(2000)}"a"${']'.repeat(2000)}) { position } }` },
          },
          'query: is nested more than 64 levels deep',
        ],
        [
          { id: 'nul', type: 'subscribe', payload: { query: 'subscription { changes(entityTypes: ["a\u0000"]) { position } }' } },
          'must not contain the NUL character',
        ],
        [
          { id: 'big', type: 'subscribe', payload: { query: `subscription { changes { position } } # ${'x'.repeat(60_000)}` } },
          'GRAPHQL_MAX_DOCUMENT_BYTES',
        ],
      ] as const) {
        const socket = await rawSocket(baseUrl);
        socket.send({ type: 'connection_init', payload: { Authorization: `Bearer ${harness.adminToken}` } });
        await socket.until((received) => received.type === 'connection_ack');
        socket.send(message);
        const [code, text] = await socket.closed;
        expect(code).toBe(4400);
        expect(text).toContain('Invalid message received');
        expect(text).toContain(reason.slice(0, 40));
      }
    });

    it('closes a socket that sends a second connection_init (4429)', async () => {
      const socket = await rawSocket(baseUrl);
      socket.send({ type: 'connection_init', payload: { Authorization: `Bearer ${harness.adminToken}` } });
      socket.send({ type: 'connection_init', payload: { Authorization: `Bearer ${harness.adminToken}` } });
      expect(await socket.closed).toEqual([4429, 'Too many initialisation requests']);
    });

    it('closes a socket that reuses a running subscription’s id (4409) and gives every place back', async () => {
      const caller = await harness.serviceAccount('sub-reused-id', ['default']);
      for (let round = 0; round < 4; round += 1) {
        const socket = await rawSocket(baseUrl);
        socket.send({ type: 'connection_init', payload: { Authorization: `Bearer ${caller}` } });
        await socket.until((message) => message.type === 'connection_ack');
        socket.send({ id: 'same', type: 'subscribe', payload: { query: CHANGES } });
        socket.send({ id: 'same', type: 'subscribe', payload: { query: CHANGES } });
        const [code, reason] = await socket.closed;
        expect([code, reason]).toEqual([4409, 'Subscriber for same already exists']);
        await drained();
      }
      // Four rounds of two subscriptions under one id, with at most 3 per caller: none was kept.
      const client = wsClient(baseUrl, caller);
      const fresh = Array.from({ length: 3 }, () => collect(client, CHANGES, { types: ['template'] }));
      await listening(3);
      const id = await createTemplate();
      for (const item of fresh) expect(changesOf(await item.waitFor(1))[0]).toMatchObject({ entityId: id });
      await client.dispose();
    });

    // Last of the shared tests: the places it fills are given back only as the server sees its sockets close.
    it('refuses a WebSocket upgrade from an address with SUBSCRIPTION_MAX_PENDING_PER_ADDRESS sockets not signed in (429)', async () => {
      const idle = await Promise.all(Array.from({ length: 6 }, () => rawSocket(baseUrl)));
      await expect(rawSocket(baseUrl)).rejects.toThrow('Unexpected server response: 429');
      // A socket that signs in stops counting: another upgrade is accepted.
      idle[0]?.send({ type: 'connection_init', payload: { Authorization: `Bearer ${harness.adminToken}` } });
      await idle[0]?.until((message) => message.type === 'connection_ack');
      const next = await rawSocket(baseUrl);
      for (const socket of [...idle, next]) socket.close();
      // Their places are given back as the server sees them close: the next test starts from none.
      await Promise.all([...idle, next].map((socket) => socket.closed));
    });

    if (target.name === 'postgres') {
      it('a write through replica A reaches a subscriber on replica B; a replica started later replays it', async () => {
        const url = harness.database.url ?? '';
        const sameDatabase: DatabaseTarget = {
          name: 'postgres',
          create: () => {
            const pool = createPgPool({ connectionString: url, max: 4 });
            return Promise.resolve({ pool, url, close: () => pool.end() });
          },
        };
        const replica = await openHttpApp(sameDatabase, { env });
        const replicaUrl = await replica.app.listen({ host: '127.0.0.1', port: 0 });
        const client = wsClient(replicaUrl, replica.adminToken);
        const received = collect(client, CHANGES, { types: ['template'] });
        await listening(1, replica.services.changes);
        const id = await createTemplate();
        await received.waitFor(1);
        expect(changesOf(received.items)[0]).toMatchObject({ entityId: id, action: 'TemplateCreated' });
        await client.dispose();
        await replica.close();

        const later = await openHttpApp(sameDatabase, { env });
        const laterUrl = await later.app.listen({ host: '127.0.0.1', port: 0 });
        const resumer = wsClient(laterUrl, later.adminToken);
        const before = (BigInt(changesOf(received.items)[0]?.position as string) - 1n).toString();
        const replayed = collect(resumer, CHANGES, { types: ['template'], after: before });
        await replayed.waitFor(1);
        expect(changesOf(replayed.items)[0]).toMatchObject({ entityId: id });
        await resumer.dispose();
        await later.close();
      }, 60_000);
    }
  });
}
