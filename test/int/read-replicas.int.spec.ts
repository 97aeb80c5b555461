import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningJwk } from '../../src/auth/tokens.js';
import { migrate } from '../../src/storage/migrate.js';
import { createPgPool } from '../../src/storage/pool.js';
import type { DatabaseTarget } from '../support/databases.js';
import { graphqlOf } from '../support/graphql-call.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { collect, wsClient } from '../support/graphql-ws.js';
import { startStandbyPair, type StandbyPair } from '../support/standby.js';

/**
 * Reads past one database server (docs/operations.md, read replicas): a primary and a streaming hot
 * standby of this test's own. Two service processes share the primary: one reads from it alone, the
 * other serves its reads from the standby (READ_DATABASE_URL). Both see their own writes at once;
 * the standby's answers are proven to be the standby's by pausing its replay.
 */
describe('reads from a PostgreSQL hot standby (READ_DATABASE_URL)', () => {
  let pair: StandbyPair;
  let primaryOnly: HttpHarness;
  let withStandby: HttpHarness;
  const TIMEOUT_MS = 1500;
  /** The log lines of the process reading from the standby. */
  let standbyLogs = '';
  let shared: DatabaseTarget;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    pair = await startStandbyPair();
    // Both processes on the primary's one database (the service's replicas share theirs).
    shared = {
      name: 'postgres',
      async create() {
        const pool = createPgPool({ connectionString: pair.primaryUrl, max: 8 });
        await migrate(pool);
        return { pool, url: pair.primaryUrl, close: () => pool.end() };
      },
    };
    env = {
      DATABASE_URL: pair.primaryUrl,
      SECRET_KEY: randomBytes(32).toString('base64'),
      TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
      READ_YOUR_WRITES_TIMEOUT_MS: String(TIMEOUT_MS),
    };
    primaryOnly = await openHttpApp(shared, { env });
    const logDestination = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        standbyLogs += chunk.toString();
        done();
      },
    });
    withStandby = await openHttpApp(shared, { env: { ...env, READ_DATABASE_URL: pair.standbyUrl }, logDestination });
  }, 120_000);

  afterAll(async () => {
    await withStandby.close();
    await primaryOnly.close();
    await pair.stop();
  });

  const createTemplate = async (h: HttpHarness, name: string) => {
    const created = await h.inject({ method: 'POST', url: '/api/templates', payload: { name, template: name.replaceAll('-', '_') } });
    expect(created.statusCode, created.body).toBe(201);
    return { id: created.json<{ id: string }>().id, position: String(created.headers['x-position']) };
  };

  for (const [configuration, harness] of [
    ['the primary only', () => primaryOnly],
    ['a primary and a standby', () => withStandby],
  ] as const) {
    it(`sees a write in the read that follows it, over REST and GraphQL, on ${configuration}`, async () => {
      const h = harness();
      const name = `queue-${configuration.length}`;
      const { id } = await createTemplate(h, name);
      const got = await h.inject({ method: 'GET', url: `/api/templates/${id}` });
      expect(got.statusCode, got.body).toBe(200);
      expect(got.json<{ name: string }>().name).toBe(name);
      const listed = await h.inject({ method: 'GET', url: `/api/templates?filter=${encodeURIComponent(JSON.stringify({ id: [id] }))}` });
      expect(listed.json<{ name: string }[]>().map((t) => t.name)).toEqual([name]);
      const answer = await graphqlOf(() => h)('query One($id: UUID!) { template(id: $id) { name } }', { id });
      expect(answer).toEqual({ data: { template: { name } } });
      const renamed = await h.inject({ method: 'PATCH', url: `/api/templates/${id}`, payload: { name: `${name}-renamed` } });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect((await h.inject({ method: 'GET', url: `/api/templates/${id}` })).json<{ name: string }>().name).toBe(`${name}-renamed`);
    });
  }

  it('answers reads from the standby, waiting for what this process wrote and for X-Min-Position, never stale', async () => {
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      // Written by the other process: this one owes it nothing, so the paused standby answers (without it).
      const elsewhere = await createTemplate(primaryOnly, 'written-elsewhere');
      expect((await withStandby.inject({ method: 'GET', url: `/api/templates/${elsewhere.id}` })).statusCode).toBe(404);
      const graphql = graphqlOf(() => withStandby);
      expect(await graphql('query One($id: UUID!) { template(id: $id) { name } }', { id: elsewhere.id })).toEqual({
        data: { template: null },
      });
      // Asked to wait for its position, the read waits on the standby's checkpoints, and says so past the bound.
      const waited = await withStandby.inject({
        method: 'GET',
        url: `/api/templates/${elsewhere.id}`,
        headers: { 'x-min-position': elsewhere.position },
      });
      expect(waited.statusCode).toBe(503);
      expect(waited.json<{ code: string }>().code).toBe('READ_MODEL_LAGGING');
      // Its own write: the standby cannot show it in time, so the primary answers.
      const own = await createTemplate(withStandby, 'written-here');
      const read = await withStandby.inject({ method: 'GET', url: `/api/templates/${own.id}` });
      expect(read.statusCode, read.body).toBe(200);
      // Counted per standby: reads it served, and the one it was too far behind for.
      const counted = (await withStandby.services.metrics.standbyReads.get()).values;
      const outcome = (name: string) => counted.find((v) => v.labels.outcome === name)?.value ?? 0;
      expect(outcome('served')).toBeGreaterThan(0);
      expect(outcome('behind')).toBe(1);
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
    const elsewhere = (await primaryOnly.inject({ method: 'GET', url: '/api/templates?filter={"template":"written_elsewhere"}' })).json<
      { id: string }[]
    >()[0];
    await expect
      .poll(async () => (await withStandby.inject({ method: 'GET', url: `/api/templates/${elsewhere?.id ?? ''}` })).statusCode)
      .toBe(200);
  });

  it("reads a subscription's changes (their actor) on the standby once it shows them, on the primary past the bound", async () => {
    const baseUrl = await withStandby.app.listen({ host: '127.0.0.1', port: 0 });
    const client = wsClient(baseUrl, withStandby.adminToken);
    const changes = collect(client, 'subscription { changes(entityTypes: ["template"]) { action actor { name } } }');
    /** The counts as they are now (the metric's values are live objects: copied). */
    const outcomes = async () => {
      const counted = new Map((await withStandby.services.metrics.standbyReads.get()).values.map((v) => [v.labels.outcome, v.value]));
      return (name: string) => counted.get(name) ?? 0;
    };
    const createAs = async (token: string, name: string) => {
      const created = await primaryOnly.inject({
        method: 'POST',
        url: '/api/templates',
        headers: { authorization: `Bearer ${token}` },
        payload: { name, template: name.replaceAll('-', '_') },
      });
      expect(created.statusCode, created.body).toBe(201);
    };
    try {
      await expect.poll(() => withStandby.services.changes.listening).toBe(1);
      await pair.onStandby('SELECT pg_wal_replay_pause()');
      let writer: string;
      try {
        // Signed up and writing on the other process: the paused standby cannot show the change, so the primary reads its actor.
        writer = await primaryOnly.serviceAccount('change-writer', ['infra']);
        const before = await outcomes();
        await createAs(writer, 'watched-while-paused');
        const [first] = await changes.waitFor(1);
        expect(first).toEqual({ data: { changes: { action: 'TemplateCreated', actor: { name: 'change-writer' } } } });
        expect((await outcomes())('behind') - before('behind')).toBe(1);
      } finally {
        await pair.onStandby('SELECT pg_wal_replay_resume()');
      }
      // Replaying again: the standby shows the next change within the bound, and reads its actor.
      const before = await outcomes();
      await createAs(writer, 'watched-while-replaying');
      const second = (await changes.waitFor(2))[1];
      expect(second).toEqual({ data: { changes: { action: 'TemplateCreated', actor: { name: 'change-writer' } } } });
      const after = await outcomes();
      expect([after('served') - before('served'), after('behind') - before('behind')]).toEqual([1, 0]);
    } finally {
      changes.unsubscribe();
      await client.dispose();
    }
  });

  it('keeps writes, sign-in, authentication and mutations on the primary while the standby is paused', async () => {
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      // Signed in on the other process a moment ago: the standby has not seen the account, the primary has.
      const elsewhere = await primaryOnly.serviceAccount('signed-in-elsewhere', ['default']);
      const listed = await graphqlOf(() => withStandby)('{ templates { name } }', {}, elsewhere);
      expect(listed.errors).toBeUndefined();
      const token = await withStandby.serviceAccount('standby-reader', ['infra']);
      const me = await withStandby.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
      expect(me.statusCode, me.body).toBe(200);
      const created = await graphqlOf(() => withStandby)(
        'mutation { createTemplate(input: { name: "By mutation", template: "by_mutation" }) { name } }',
      );
      expect(created).toEqual({ data: { createTemplate: { name: 'By mutation' } } });
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
  });
  it('passes over a standby that stops: the primary answers every read, one warning says so, and the standby serves again once back', async () => {
    const name = 'through-an-outage';
    const { id } = await createTemplate(withStandby, name);
    const graphql = graphqlOf(() => withStandby);
    const outcomes = async () => {
      const counted = new Map((await withStandby.services.metrics.standbyReads.get()).values.map((v) => [v.labels.outcome, v.value]));
      return (outcome: string) => counted.get(outcome) ?? 0;
    };
    const said = (message: string) => standbyLogs.split('\n').filter((line) => line.includes(message)).length;
    // Read once on the standby: it shows every write of this process, so the next read goes to it without asking.
    const shown = await outcomes();
    expect((await withStandby.inject({ method: 'GET', url: `/api/templates/${id}` })).statusCode).toBe(200);
    expect((await outcomes())('served') - shown('served')).toBe(1);
    const before = await outcomes();
    await pair.stopStandby();
    try {
      for (let i = 0; i < 4; i++) {
        const rest = await withStandby.inject({ method: 'GET', url: `/api/templates/${id}` });
        expect(rest.statusCode, rest.body).toBe(200);
        expect(await graphql('query One($id: UUID!) { template(id: $id) { name } }', { id })).toEqual({ data: { template: { name } } });
        const listed = await withStandby.inject({ method: 'GET', url: '/api/templates' });
        expect(listed.statusCode, listed.body).toBe(200);
      }
      // A write and the read that follows it, while the standby is out.
      const during = await createTemplate(withStandby, 'written-while-out');
      const read = await withStandby.inject({ method: 'GET', url: `/api/templates/${during.id}` });
      expect(read.statusCode, read.body).toBe(200);
      expect((await outcomes())('unreachable') - before('unreachable')).toBeGreaterThan(0);
      expect(said('standby unreachable: its reads go to the primary')).toBe(1);
    } finally {
      await pair.startStandby();
    }
    // Asked again after a second, then less often: once it answers, it serves reads again.
    await expect
      .poll(
        async () => {
          expect((await withStandby.inject({ method: 'GET', url: `/api/templates/${id}` })).statusCode).toBe(200);
          return said('standby answers again');
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(1);
    // Served there once it has replayed what was written while it was out (each read waits for that up to the bound).
    const back = await outcomes();
    await expect
      .poll(
        async () => {
          expect((await withStandby.inject({ method: 'GET', url: `/api/templates/${id}` })).statusCode).toBe(200);
          return (await outcomes())('served') - back('served');
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBeGreaterThan(0);
    expect(said('standby answers again')).toBe(1);
    expect(said('standby unreachable: its reads go to the primary')).toBe(1);
  });
  it('passes over a standby whose address accepts connections and never answers, once the bound has passed', async () => {
    // What a standby behind a dropped route looks like from here: the connection never gets an answer.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const h = await openHttpApp(shared, {
      env: { ...env, READ_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, READ_YOUR_WRITES_TIMEOUT_MS: '300' },
    });
    try {
      const { id } = await createTemplate(h, 'past-a-silent-standby');
      for (let i = 0; i < 3; i++) {
        const read = await h.inject({ method: 'GET', url: `/api/templates/${id}` });
        expect(read.statusCode, read.body).toBe(200);
      }
      const counted = (await h.services.metrics.standbyReads.get()).values;
      expect(counted.find((v) => v.labels.outcome === 'unreachable')?.value).toBe(3);
    } finally {
      await h.close();
      silent.close();
    }
  });
});
