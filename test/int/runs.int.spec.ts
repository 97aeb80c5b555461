import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEvents } from '../../src/projections/runner.js';
import { runsProjection } from '../../src/projections/runs.js';
import { deleteRunLogsBefore } from '../../src/read/run-logs.js';
import { withTransaction } from '../../src/storage/pool.js';
import { databaseTargets } from '../support/databases.js';
import { collect, wsClient } from '../support/graphql-ws.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { dumpTables, readAllCommitted } from '../support/spine.js';

type Json = Record<string, unknown>;

/** Stored secret values the runner could print: each must reach the log as ********. */
const CUSTOM_SECRET = 'custom-secret-value-1234';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SENSITIVE_VARIABLE = 'correct-horse-battery-staple';
/** The bound of every run's log in these tests. */
const MAX_BYTES = 200;

interface Run {
  id: string;
  resourceId: string;
  action: string;
  status: string;
  actorId: string | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  outputs: Json | null;
}
interface Appended {
  runId: string;
  seq: number | null;
  acceptedBytes: number;
  bytes: number;
  truncated: boolean;
}
interface LogPage {
  runId: string;
  status: string;
  chunks: { runId: string; seq: number; content: string; at: string }[];
  bytes: number;
  truncated: boolean;
}

/**
 * Runs (docs/contract.md §2, "Runs"): derived from the lifecycle events, with logs the runner
 * appends outside the event store — masked, bounded, read in pages over REST and GraphQL, tailed
 * live over the GraphQL subscription transport, and deleted after their retention.
 */
for (const target of databaseTargets()) {
  describe(`runs and their logs on ${target.name}`, () => {
    let h: HttpHarness;
    let baseUrl: string;
    let requester: string;
    let requesterId: string;
    let runner: string;
    let templateId: string;
    let secretId: string;
    let integrationId: string;
    let seq = 0;

    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
    const ok = <T>(response: LightMyRequestResponse, status = 200): T => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json<T>();
    };
    const act = (id: string, action: string, token: string, payload: Json = {}) =>
      h.inject({ method: 'POST', url: `/api/resources/${id}/actions/${action}`, payload, headers: as(token) });
    const append = (id: string, runId: string, content: string, token = runner) =>
      h.inject({ method: 'POST', url: `/api/resources/${id}/runs/${runId}/logs`, payload: { content }, headers: as(token) });
    const runsOf = async (id: string) => ok<Run[]>(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs` }));
    const logOf = async (id: string, runId: string, query = ''): Promise<LogPage> =>
      ok<LogPage>(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs/${runId}/logs${query}` }));
    const gql = async (query: string, variables: Json = {}, token = h.adminToken) =>
      ok<{ data: Json | null; errors?: { message: string; extensions: Json }[] }>(
        await h.app.inject({
          method: 'POST',
          url: '/api/graphql',
          headers: { ...as(token), 'content-type': 'application/json' },
          payload: { query, variables },
        }),
      );

    /** A requested, approved resource with the secrets wired in; executed and started when asked. */
    const resource = async (until: 'ready' | 'queued' | 'in_progress'): Promise<{ id: string; runId: string }> => {
      const created = ok<{ id: string }>(
        await h.inject({
          method: 'POST',
          url: '/api/resources',
          headers: as(requester),
          payload: {
            name: `run-${++seq}`,
            templateId,
            secretIds: [secretId],
            integrationIds: [integrationId],
            variables: [{ name: 'db_password', value: SENSITIVE_VARIABLE, sensitive: true }],
          },
        }),
        201,
      );
      ok(await act(created.id, 'approve', h.adminToken));
      if (until === 'ready') return { id: created.id, runId: '' };
      ok(await act(created.id, 'execute', requester));
      const [run] = (await h.inject({ method: 'GET', url: `/api/resources/${created.id}/runs` })).json<Run[]>();
      if (until === 'in_progress') ok(await act(created.id, 'start', runner));
      return { id: created.id, runId: run?.id ?? '' };
    };

    beforeAll(async () => {
      h = await openHttpApp(target, { env: { RUN_LOG_MAX_BYTES: String(MAX_BYTES) } });
      baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
      requester = await h.serviceAccount('run-requester', ['default']);
      runner = await h.serviceAccount('run-runner', ['infra']);
      requesterId =
        ok<{ id: string }[]>(await h.inject({ method: 'GET', url: '/api/users?filter={"identifier":"run-requester"}' }))[0]?.id ?? '';
      templateId = ok<{ id: string }>(
        await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Runs', template: 'runs', abstract: true } }),
        201,
      ).id;
      secretId = ok<{ id: string }>(
        await h.inject({
          method: 'POST',
          url: '/api/secrets',
          payload: { name: 'db', secretProvider: 'custom', configuration: { secrets: [{ name: 'token', value: CUSTOM_SECRET }] } },
        }),
        201,
      ).id;
      integrationId = ok<{ id: string }>(
        await h.inject({
          method: 'POST',
          url: '/api/integrations',
          payload: {
            name: 'aws',
            integrationType: 'cloud',
            integrationProvider: 'aws',
            configuration: { awsAccessKeyId: 'AKIAEXAMPLE', awsSecretAccessKey: AWS_SECRET, awsAccount: '123456789012' },
          },
        }),
        201,
      ).id;
    }, 60_000);
    afterAll(() => h.close());

    it('derives a run from execute, start and succeed, with its actor, times and outputs', async () => {
      const { id, runId } = await resource('queued');
      const queued = await runsOf(id);
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({
        id: runId,
        resourceId: id,
        action: 'apply',
        status: 'queued',
        actorId: requesterId,
        startedAt: null,
        finishedAt: null,
      });
      ok(await act(id, 'start', runner));
      expect(ok<Run>(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs/${runId}` }))).toMatchObject({
        status: 'in_progress',
        startedAt: expect.any(String) as unknown,
      });
      ok(await act(id, 'succeed', runner, { outputs: { endpoint: 'db.internal:5432' } }));
      const done = ok<Run>(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs/${runId}` }));
      expect(done).toMatchObject({ status: 'succeeded', outputs: { endpoint: 'db.internal:5432' }, error: null });
      expect(Date.parse(done.finishedAt ?? '')).toBeGreaterThan(Date.parse(done.startedAt ?? ''));
      // A destroy queues a run of its own, newest first; a failure keeps the runner's error.
      ok(await act(id, 'destroy', requester));
      ok(await act(id, 'approve', h.adminToken));
      ok(await act(id, 'execute', requester));
      ok(await act(id, 'start', runner));
      ok(await act(id, 'fail', runner, { error: 'state lock held' }));
      const runs = await runsOf(id);
      expect(runs.map((r) => [r.action, r.status, r.error])).toEqual([
        ['destroy', 'failed', 'state lock held'],
        ['apply', 'succeeded', null],
      ]);
      const filtered = await h.inject({ method: 'GET', url: `/api/resources/${id}/runs?filter={"status":"failed"}` });
      expect(filtered.headers['content-range']).toBe('runs 0-0/1');
      expect(ok(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs?filter={"colour":"red"}` }), 400)).toMatchObject({
        code: 'VALIDATION',
      });
    });

    it('cancels a queued run: an audited event, the resource ready again, the run ended and closed to logs', async () => {
      const { id, runId } = await resource('queued');
      const other = await h.serviceAccount('run-stranger', ['default']);
      expect(ok<{ code: string }>(await act(id, 'cancel', other), 403).code).toBe('FORBIDDEN');
      const cancelled = ok<{ state: string; status: string }>(await act(id, 'cancel', requester));
      expect(cancelled).toMatchObject({ state: 'provision', status: 'ready' });
      const run = ok<Run>(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs/${runId}` }));
      expect(run).toMatchObject({ status: 'cancelled', startedAt: null, finishedAt: expect.any(String) as unknown });
      // Nothing runs it any more: the runner's start is refused, and so are log lines.
      expect(ok<{ detail: string }>(await act(id, 'start', runner), 409).detail).toContain('allowed: execute, delete');
      expect((await append(id, runId, 'late line\n')).statusCode).toBe(409);
      const [entry] = ok<{ verb: string; actorId: string }[]>(
        await h.inject({
          method: 'GET',
          url: `/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: id, verb: 'cancelled' }))}`,
        }),
      );
      expect(entry).toMatchObject({ verb: 'cancelled', actorId: requesterId });
      // It can be executed again, and that queues a new run.
      ok(await act(id, 'execute', requester));
      expect((await runsOf(id)).map((r) => r.status)).toEqual(['queued', 'cancelled']);
      const answer = await gql('mutation ($id: UUID!) { resourceAction(id: $id, action: cancel) { status } }', { id });
      expect(answer).toEqual({ data: { resourceAction: { status: 'ready' } } });
    });

    it('answers runs and run over GraphQL, for readers of resources', async () => {
      const { id, runId } = await resource('in_progress');
      const answer = await gql(
        'query ($f: JSON, $id: UUID) { runs(filter: $f) { id action status actor { name } resource { name } } runsCount(filter: $f) ' +
          'run(id: $id) { id status startedAt } }',
        {
          f: { resourceId: id },
          id: runId,
        },
        requester,
      );
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toMatchObject({
        runs: [
          {
            id: runId,
            action: 'apply',
            status: 'in_progress',
            actor: { name: 'run-requester' },
            resource: { name: expect.stringMatching(/^run-/) as unknown },
          },
        ],
        runsCount: 1,
        run: { id: runId, status: 'in_progress' },
      });
    });

    it("masks every stored secret of the resource's variables, secrets and integrations before storing a line", async () => {
      const { id, runId } = await resource('in_progress');
      const line = `password=${SENSITIVE_VARIABLE} token=${CUSTOM_SECRET} key=${AWS_SECRET}\n`;
      expect(ok<Appended>(await append(id, runId, line))).toMatchObject({ runId, seq: 1, truncated: false });
      const page = await logOf(id, runId);
      expect(page.chunks.map((c) => c.content)).toEqual(['password=******** token=******** key=********\n']);
      // Nothing of the secrets reached the table, nor the event store.
      const { rows } = await h.database.pool.query<{ content: string }>('SELECT content FROM run_log_chunks');
      const stored = JSON.stringify(rows) + JSON.stringify((await h.database.pool.query('SELECT data FROM events')).rows);
      for (const secret of [SENSITIVE_VARIABLE, CUSTOM_SECRET, AWS_SECRET]) expect(stored).not.toContain(secret);
    });

    it('masks through the GraphQL mutation too, and reads the log over GraphQL', async () => {
      const { id, runId } = await resource('in_progress');
      const appended = await gql(
        'mutation ($r: UUID!, $run: UUID!, $c: String!) { appendRunLog(resourceId: $r, runId: $run, content: $c) { runId seq ' +
          'acceptedBytes bytes truncated } }',
        { r: id, run: runId, c: `aws key ${AWS_SECRET}\n` },
        runner,
      );
      expect(appended.errors).toBeUndefined();
      expect(appended.data?.appendRunLog).toEqual({ runId, seq: 1, acceptedBytes: 17, bytes: 17, truncated: false });
      const read = await gql(
        'query ($run: UUID!) { runLog(runId: $run) { status bytes truncated chunks { seq content } } }',
        { run: runId },
        requester,
      );
      expect(read.data?.runLog).toEqual({
        status: 'in_progress',
        bytes: 17,
        truncated: false,
        chunks: [{ seq: 1, content: 'aws key ********\n' }],
      });
    });

    it('keeps at most RUN_LOG_MAX_BYTES per run, ends the log with a marker and drops what follows', async () => {
      const { id, runId } = await resource('in_progress');
      const line = `${'x'.repeat(79)}\n`;
      expect(ok<Appended>(await append(id, runId, line))).toMatchObject({ seq: 1, acceptedBytes: 80, bytes: 80, truncated: false });
      expect(ok<Appended>(await append(id, runId, line))).toMatchObject({ seq: 2, bytes: 160, truncated: false });
      // A multi-byte character is never cut in half: 40 bytes are left, "é" takes two.
      expect(ok<Appended>(await append(id, runId, 'é'.repeat(30)))).toMatchObject({
        seq: 3,
        acceptedBytes: 40,
        bytes: 200,
        truncated: true,
      });
      expect(ok<Appended>(await append(id, runId, 'more\n'))).toEqual({ runId, seq: null, acceptedBytes: 0, bytes: 200, truncated: true });
      const page = await logOf(id, runId);
      expect(page).toMatchObject({ bytes: 200, truncated: true });
      expect(page.chunks.map((c) => c.seq)).toEqual([1, 2, 3]);
      expect(page.chunks[2]?.content).toBe(
        `${'é'.repeat(20)}\n[infraledger: this run's log reached ${MAX_BYTES} bytes and was truncated; later output was dropped]\n`,
      );
      // Paging: after a sequence number, at most `limit` chunks.
      expect((await logOf(id, runId, '?after=1&limit=1')).chunks.map((c) => c.seq)).toEqual([2]);
      expect(ok(await h.inject({ method: 'GET', url: `/api/resources/${id}/runs/${runId}/logs?after=-1` }), 400)).toMatchObject({
        code: 'VALIDATION',
      });
    });

    it('numbers concurrent appends consecutively and never exceeds the bound', async () => {
      const { id, runId } = await resource('in_progress');
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => append(id, runId, `line ${String(i).padStart(2, '0')} ${'y'.repeat(20)}\n`)),
      );
      const appended = answers.map((answer) => ok<Appended>(answer));
      const stored = appended.filter((a) => a.seq !== null).map((a) => a.seq);
      expect([...stored].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
      const page = await logOf(id, runId);
      expect(page.bytes).toBe(MAX_BYTES);
      expect(page.truncated).toBe(true);
    });

    it('takes appends only from runners, for open runs of that resource', async () => {
      const { id, runId } = await resource('queued');
      // Queued runs take output already (a runner may log while preparing).
      expect(ok<Appended>(await append(id, runId, 'preparing\n')).seq).toBe(1);
      expect(ok(await append(id, runId, 'x', requester), 403)).toMatchObject({ detail: 'missing permission resource:write' });
      const other = await resource('ready');
      expect(ok(await append(other.id, runId, 'x'), 404)).toMatchObject({ detail: 'run not found' });
      expect(
        ok(
          await h.inject({
            method: 'POST',
            url: `/api/resources/${id}/runs/${runId}/logs`,
            payload: { content: '', extra: 1 },
            headers: as(runner),
          }),
          400,
        ),
      ).toMatchObject({
        errors: [
          { field: 'content', message: 'must not be empty' },
          { field: 'extra', message: 'unknown field' },
        ],
      });
      ok(await act(id, 'start', runner));
      ok(await act(id, 'succeed', runner));
      expect(ok(await append(id, runId, 'late\n'), 409)).toMatchObject({
        detail: `run ${runId} has ended (succeeded): its log takes no more output`,
      });
    });

    it("tails a run's log live over the GraphQL subscription until the run ends", async () => {
      const { id, runId } = await resource('in_progress');
      ok(await append(id, runId, 'first\n'));
      const client = wsClient(baseUrl, requester);
      try {
        const tail = collect(client, 'subscription ($run: UUID!) { runLog(runId: $run, after: 0) { seq content } }', { run: runId });
        await tail.waitFor(1);
        ok(await append(id, runId, `second ${CUSTOM_SECRET}\n`));
        await tail.waitFor(2);
        ok(await append(id, runId, 'third\n'));
        await tail.waitFor(3);
        ok(await act(id, 'succeed', runner));
        await tail.waitFor(4);
        expect(tail.items).toEqual([
          { data: { runLog: { seq: 1, content: 'first\n' } } },
          { data: { runLog: { seq: 2, content: 'second ********\n' } } },
          { data: { runLog: { seq: 3, content: 'third\n' } } },
          { complete: true },
        ]);
        // Resuming after a sequence number replays only what follows, then completes (the run ended).
        const resumed = collect(client, 'subscription ($run: UUID!) { runLog(runId: $run, after: 2) { seq } }', { run: runId });
        await resumed.waitFor(2);
        expect(resumed.items).toEqual([{ data: { runLog: { seq: 3 } } }, { complete: true }]);
        expect(h.services.runLogs.size).toBe(0);
      } finally {
        await client.dispose();
      }
    });

    it('refuses a tail of an unknown run, naming why', async () => {
      const client = wsClient(baseUrl, requester);
      try {
        const tail = collect(client, 'subscription { runLog(runId: "00000000-0000-4000-8000-000000000000") { seq } }');
        await tail.waitFor(1);
        expect(JSON.stringify(tail.items[0])).toContain('run not found');
      } finally {
        await client.dispose();
      }
    });

    it('deletes logs that last grew before the retention cut-off, and nothing newer', async () => {
      const { id, runId } = await resource('in_progress');
      ok(await append(id, runId, 'kept for now\n'));
      const heads = async () =>
        Number((await h.database.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM run_log_heads')).rows[0]?.n);
      const before = await heads();
      expect(await deleteRunLogsBefore(h.database.pool, new Date('2000-01-01T00:00:00Z'))).toBe(0);
      expect(await heads()).toBe(before);
      // The harness clock stands in 2024: everything appended so far is older than a cut-off in 2100.
      expect(await deleteRunLogsBefore(h.database.pool, new Date('2100-01-01T00:00:00Z'))).toBe(before);
      expect(await heads()).toBe(0);
      expect((await logOf(id, runId)).chunks).toEqual([]);
    });

    it('projects the same runs from scratch, and again when the events are applied twice', async () => {
      const events = await readAllCommitted(h.services.store, { limit: 100_000 });
      const projected = await dumpTables(h.database.pool, ['runs']);
      expect((projected.runs ?? []).length).toBeGreaterThan(5);
      await withTransaction(h.database.pool, async (tx) => {
        await tx.query('DELETE FROM runs');
        await applyEvents(tx, runsProjection, h.services.codec, events);
      });
      expect(await dumpTables(h.database.pool, ['runs'])).toEqual(projected);
      await withTransaction(h.database.pool, (tx) => applyEvents(tx, runsProjection, h.services.codec, events));
      expect(await dumpTables(h.database.pool, ['runs'])).toEqual(projected);
    });

    it('projects the same runs whatever the batches: a run queued and moved in one batch, or its moves split across several', async () => {
      const events = await readAllCommitted(h.services.store, { limit: 100_000 });
      const projected = await dumpTables(h.database.pool, ['runs']);
      for (const size of [1, 2, 3, 7]) {
        await withTransaction(h.database.pool, (tx) => tx.query('DELETE FROM runs'));
        for (let at = 0; at < events.length; at += size) {
          await withTransaction(h.database.pool, (tx) => applyEvents(tx, runsProjection, h.services.codec, events.slice(at, at + size)));
        }
        expect(await dumpTables(h.database.pool, ['runs'])).toEqual(projected);
      }
    });
  });
}
