import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withTransaction, type SqlPool } from '../../src/storage/pool.js';
import { dropAbandonedRebuilds, rebuildProjection, type RebuildDeps } from '../../src/projections/rebuild.js';
import { applyEvents, PoisonEvent, ProjectionRunner, projectionLockKey } from '../../src/projections/runner.js';
import { createPositionWaiter } from '../../src/projections/waiter.js';
import { withClientHook } from '../support/client-hook.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';
import { AWKWARD, dyingPool, rawMetadata, writeHistory } from '../support/template-history.js';
import { templateEntity } from '../../src/model/template.js';
import { projectionOf } from '../../src/projections/declared.js';

const templatesProjection = projectionOf(templateEntity);

/** How long a test's rebuild is run again while the readable bound stays short of the newest event. */
const REBUILD_PATIENCE_MS = 30_000;

const TABLES = templatesProjection.tables;
/** Starts a runner and resolves once it has applied everything up to `position`. */
async function catchUp(runner: ProjectionRunner, position: bigint): Promise<void> {
  runner.start();
  while (runner.position === undefined || runner.position < position) {
    await new Promise<void>((resolve) => runner.progress.once('position', () => resolve()));
  }
}

/**
 * A pool whose first shadow write and first index build of a rebuild pause with their transaction
 * open (and holding a transaction id) while `during` runs. The index build runs its own text, mark
 * and all, inside a transaction kept open for the pause.
 */
function pausingPool(pool: SqlPool, during: (what: string) => Promise<void>): SqlPool {
  const paused = new Set<string>();
  const once = (what: string): boolean => !paused.has(what) && Boolean(paused.add(what));
  const hooked = withClientHook(pool, async (text, client) => {
    if (!text.includes('SET LOCAL search_path TO rebuild_') || !once('a shadow write')) return;
    await client.query('SELECT pg_current_xact_id()');
    await during('a shadow write');
  });
  return {
    ...hooked,
    async query<R>(text: string, params?: readonly unknown[]) {
      if (!text.includes('CREATE INDEX') || !once('an index build')) return pool.query<R>(text, params);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await client.query<R>(text, params);
        await during('an index build');
        await client.query('COMMIT');
        return result;
      } finally {
        client.release();
      }
    },
  };
}

for (const target of databaseTargets()) {
  describe(`projections on ${target.name}`, () => {
    let spine: Spine;
    beforeEach(async () => {
      spine = await openSpine(target);
    });
    afterEach(async () => spine.close());

    const runnerOn = (pool: SqlPool, batchSize = 7) =>
      new ProjectionRunner(templatesProjection, {
        pool,
        store: spine.store,
        codec: spine.codec,
        log: spine.log,
        batchSize,
        retryDelayMs: 10,
      });
    /**
     * A rebuild of the whole log as it stands when it is asked for. A rebuild replays what is readable
     * when it starts; under a parallel suite, a transaction of another database that ends as the bound
     * is read holds the bound back for that moment (migration 039), and the rebuild then ends short,
     * as it should. So a rebuild that ended before the newest event is run again (`before` each time),
     * as an operator would (each run is itself a wait of a rebuild's length), for up to
     * REBUILD_PATIENCE_MS; past that the test fails naming what in this database held the bound. A
     * refused rebuild is not run again.
     */
    const rebuild = async (options: Partial<RebuildDeps> = {}, before = (): void => undefined) => {
      const newest = await spine.store.lastPosition();
      const deadline = Date.now() + REBUILD_PATIENCE_MS;
      for (;;) {
        before();
        const result = await rebuildProjection(
          { pool: spine.pool, store: spine.store, codec: spine.codec, log: spine.log, batchSize: 50, ...options },
          templatesProjection,
        );
        if (newest === undefined || (result.position !== undefined && result.position >= newest)) return result;
        if (Date.now() > deadline) {
          const { rows } = await spine.pool.query(
            `SELECT pid, backend_type, state, backend_xid::text AS xid, left(query, 100) AS query
               FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL`,
          );
          throw new Error(
            `every rebuild for ${String(REBUILD_PATIENCE_MS)} ms ended at ${String(result.position)}, before ${String(newest)}; ` +
              `transactions of this database holding an id: ${JSON.stringify(rows)}`,
          );
        }
      }
    };

    describe('when the same events are applied twice', () => {
      it('leaves the tables as one application does', async () => {
        await writeHistory(spine);
        const events = await readAllCommitted(spine.store, { limit: 10_000 });
        await withTransaction(spine.pool, (tx) => applyEvents(tx, templatesProjection, spine.codec, events));
        const once = await dumpTables(spine.pool, TABLES);
        await withTransaction(spine.pool, (tx) => applyEvents(tx, templatesProjection, spine.codec, events));
        expect(await dumpTables(spine.pool, TABLES)).toEqual(once);
        expect((once.templates ?? []).length).toBe(40);
      });
    });

    describe('when a rebuild was killed before its swap', () => {
      const shadowSchemas = async (): Promise<string[]> =>
        (
          await spine.pool.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%' ORDER BY 1")
        ).rows.map((r) => r.name);

      it('drops its shadow schema at the next start, and the next rebuild still works', async () => {
        // What a rebuild of sessions leaves when killed mid-replay: its shadow schema with a table.
        await spine.pool.query('CREATE SCHEMA rebuild_sessions; CREATE TABLE rebuild_sessions.sessions (LIKE public.sessions)');
        expect(await shadowSchemas()).toEqual(['rebuild_sessions']);
        expect(await dropAbandonedRebuilds(spine.pool, spine.log)).toEqual(['rebuild_sessions']);
        expect(await shadowSchemas()).toEqual([]);
        await writeHistory(spine, 5);
        expect((await rebuild()).events).toBeGreaterThan(0);
        expect(await shadowSchemas()).toEqual([]);
      });

      if (target.name === 'postgres') {
        it('keeps the shadow schema of a rebuild another process is running', async () => {
          const other = await spine.pool.connect();
          try {
            // Another process's rebuild of templates: it holds the rebuild lock while its schema exists.
            await other.query('SELECT pg_advisory_lock($1)', [projectionLockKey('rebuild_templates')]);
            await spine.pool.query('CREATE SCHEMA rebuild_templates');
            expect(await dropAbandonedRebuilds(spine.pool, spine.log)).toEqual([]);
            expect(await shadowSchemas()).toEqual(['rebuild_templates']);
            await expect(rebuild()).rejects.toThrow('projection templates is being rebuilt by another process');
            await other.query('SELECT pg_advisory_unlock($1)', [projectionLockKey('rebuild_templates')]);
            expect(await dropAbandonedRebuilds(spine.pool, spine.log)).toEqual(['rebuild_templates']);
          } finally {
            other.release();
          }
        });
      }
    });

    describe('when a rebuild follows incremental projection', () => {
      it.each([
        { what: 'gives identical tables, folded in SQL', options: {}, how: 'sql' },
        { what: 'gives identical tables, replayed in Node', options: { foldInSql: false }, how: 'replay' },
        // A row is written out after 3 events without a change, so most rows are, and many come back.
        {
          what: 'gives identical tables when rows are written out early and their events continue afterwards',
          options: { foldInSql: false, batchSize: 5, replayTuning: { quietEvents: 3 } },
          how: 'replay',
        },
      ])('$what', async ({ options, how }) => {
        const runner = runnerOn(spine.pool);
        runner.start();
        const head = await writeHistory(spine);
        await catchUp(runner, head);
        const incremental = await dumpTables(spine.pool, TABLES);
        const result = await rebuild(options);
        expect(result).toMatchObject({ position: head, how });
        expect(await dumpTables(spine.pool, TABLES)).toEqual(incremental);
        await runner.stop();
      });

      it('replays in Node, through the upcasters, when events predate their schema version', async () => {
        const runner = runnerOn(spine.pool);
        runner.start();
        await writeHistory(spine, 10);
        // A template created before documentationUrl (v2) and ownerId (v3) existed.
        const id = randomUUID();
        const { position: head } = await spine.store.append(
          `template-${id}`,
          [
            {
              eventId: randomUUID(),
              type: 'TemplateCreated',
              data: {
                id,
                name: 'created at v1',
                template: 'created_at_v1',
                description: '',
                labels: [],
                abstract: false,
                cloudResourceTypes: [],
                configuration: {},
                executorIds: [],
                parentIds: [],
                status: 'enabled',
              },
              metadata: rawMetadata(),
            },
          ],
          { expectedRevision: 'no_stream' },
        );
        await catchUp(runner, head);
        const incremental = await dumpTables(spine.pool, TABLES);
        expect(await rebuild()).toMatchObject({ position: head, how: 'replay' });
        expect(await dumpTables(spine.pool, TABLES)).toEqual(incremental);
        await runner.stop();
      });

      it('keeps text exactly as the commands wrote it, quotes, backslashes and literal syntax included', async () => {
        await writeHistory(spine, 10);
        await rebuild();
        const { rows } = await spine.pool.query<{ description: string; labels: string[]; configuration: unknown }>(
          "SELECT description, labels, configuration FROM templates WHERE template = 'first_template_1'",
        );
        expect(rows).toEqual([
          {
            description: `number 1: ${AWKWARD}`,
            labels: ['group-1', AWKWARD, 'NULL', '"'],
            configuration: { size: 1, note: AWKWARD, nested: { list: [AWKWARD, null] } },
          },
        ]);
      });

      it('reads only its own events, and ends at the head of a log whose last events are of other kinds', async () => {
        const runner = runnerOn(spine.pool);
        runner.start();
        await writeHistory(spine, 10);
        const others = Array.from({ length: 5 }, () => ({
          eventId: randomUUID(),
          type: 'SomethingElseHappened',
          data: {},
          metadata: { correlationId: randomUUID() },
        }));
        const head = (await spine.store.append(`elsewhere-${randomUUID()}`, others, { expectedRevision: 'no_stream' })).position;
        await catchUp(runner, head);
        const incremental = await dumpTables(spine.pool, TABLES);
        const own = (await readAllCommitted(spine.store, { limit: 10_000 })).filter((e) => templatesProjection.handles.has(e.type)).length;
        const progress: [number, number | undefined][] = [];
        const result = await rebuild({ onProgress: (replayed, total) => progress.push([replayed, total]) }, () => {
          progress.length = 0;
        });
        expect(result).toMatchObject({ events: own, position: head });
        expect(progress.at(-1)).toEqual([own, own]);
        expect(await dumpTables(spine.pool, TABLES)).toEqual(incremental);
        await runner.stop();
      });

      it('keeps answering reads from the old tables while it replays', async () => {
        const runner = runnerOn(spine.pool);
        const head = await writeHistory(spine, 30);
        await catchUp(runner, head);
        const before = await dumpTables(spine.pool, ['templates']);
        const rebuilding = rebuild();
        const reads = await Promise.all(Array.from({ length: 10 }, () => spine.pool.query('SELECT * FROM templates ORDER BY 1, 2')));
        await rebuilding;
        for (const { rows } of reads) expect(rows).toEqual(before.templates);
        await runner.stop();
      });

      if (target.name === 'postgres') {
        it('holds no reader of $all back while it writes its shadow tables and builds their indexes', async () => {
          await writeHistory(spine, 10);
          // Each pause appends an event and reads it back at once: an open rebuild transaction that
          // held readers back would make the read come back empty.
          let readable: Record<string, boolean> = {};
          const probe = async (during: string): Promise<void> => {
            const appended = await spine.store.append(
              `probe-${randomUUID()}`,
              [{ eventId: randomUUID(), type: 'Probed', data: {}, metadata: {} }],
              { expectedRevision: 'no_stream' },
            );
            const seen = await readAllCommitted(spine.store, { after: appended.position - 1n, limit: 1 });
            readable[during] = seen[0]?.position === appended.position;
          };
          await rebuild({ pool: pausingPool(spine.pool, probe) }, () => {
            readable = {};
          });
          expect(readable).toEqual({ 'a shadow write': true, 'an index build': true });
          const { rows } = await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates');
          expect(Number(rows[0]?.n)).toBe(10);
        });
      }

      it('keeps the live runner going from where the rebuild ended', async () => {
        const runner = runnerOn(spine.pool);
        const head = await writeHistory(spine, 10);
        await catchUp(runner, head);
        await rebuild();
        const more = await writeHistory(spine, 5, 'second');
        await catchUp(runner, more);
        const { rows } = await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates');
        expect(Number(rows[0]?.n)).toBe(15);
        await runner.stop();
      });
    });

    describe('when the process dies in the middle of a batch', () => {
      it('restarts from its checkpoint and ends with the tables of a full rebuild', async () => {
        const head = await writeHistory(spine);
        let died!: () => void;
        const death = new Promise<void>((resolve) => (died = resolve));
        const doomed = runnerOn(dyingPool(spine.pool, 4, () => died()));
        doomed.start();
        await death;
        await doomed.stop();
        const { rows } = await spine.pool.query<{ position: string }>(
          "SELECT position FROM projection_checkpoints WHERE name = 'templates'",
        );
        expect(BigInt(rows[0]?.position ?? '0')).toBeLessThan(head);

        const restarted = runnerOn(spine.pool);
        await catchUp(restarted, head);
        await restarted.stop();
        const afterRestart = await dumpTables(spine.pool, TABLES);
        await rebuild();
        expect(await dumpTables(spine.pool, TABLES)).toEqual(afterRestart);
      });
    });

    describe('when a runner is stopped while it is still starting', () => {
      it('stops instead of subscribing afterwards', async () => {
        const runner = runnerOn(spine.pool);
        runner.start();
        await runner.stop();
        expect(runner.state).toBe('stopped');
      });
    });

    describe('when two runners of the same projection run at once', () => {
      it('applies every event exactly once', async () => {
        const first = runnerOn(spine.pool, 3);
        const second = runnerOn(spine.pool, 5);
        first.start();
        second.start();
        const head = await writeHistory(spine, 20);
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: [], timeoutMs: 30_000, pollMs: 10 });
        await waitFor(['templates'], head);
        const concurrent = await dumpTables(spine.pool, TABLES);
        await Promise.all([first.stop(), second.stop()]);
        await rebuild();
        expect(await dumpTables(spine.pool, TABLES)).toEqual(concurrent);
      });
    });

    describe('when an event cannot be projected', () => {
      it('stops that projection visibly, names the event, and keeps what came before', async () => {
        const head = await writeHistory(spine, 3);
        const poisonId = randomUUID();
        // Written around the codec: a TemplateCreated that breaks its own schema.
        await spine.store.append(
          `template-${randomUUID()}`,
          [
            {
              eventId: poisonId,
              type: 'TemplateCreated',
              data: { name: 42 },
              metadata: rawMetadata(),
            },
          ],
          {
            expectedRevision: 'no_stream',
          },
        );
        const runner = runnerOn(spine.pool);
        const failed = new Promise<void>((resolve) => runner.progress.once('failed', () => resolve()));
        runner.start();
        await failed;
        expect(runner.state).toBe('failed');
        const { rows } = await spine.pool.query<{ status: string; failed_event_id: string; error: string; position: string }>(
          "SELECT status, failed_event_id, error, position FROM projection_checkpoints WHERE name = 'templates'",
        );
        expect(rows[0]).toMatchObject({ status: 'failed', failed_event_id: poisonId });
        expect(rows[0]?.error).toContain(`projection failed on event ${poisonId} (TemplateCreated)`);
        expect(BigInt(rows[0]?.position ?? '0')).toBe(head);
        const { rows: count } = await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates');
        expect(Number(count[0]?.n)).toBe(3);
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: [runner], timeoutMs: 1000 });
        await expect(waitFor(['templates'], head + 1n)).rejects.toMatchObject({ code: 'READ_MODEL_STOPPED' });
        await runner.stop();
      });

      it('fails a rebuild that meets it, naming the event, and leaves the tables as they were', async () => {
        const runner = runnerOn(spine.pool);
        runner.start();
        const head = await writeHistory(spine, 5);
        await catchUp(runner, head);
        await runner.stop();
        const before = await dumpTables(spine.pool, TABLES);
        const poisonId = randomUUID();
        const poison = await spine.store.append(
          `template-${randomUUID()}`,
          [
            {
              eventId: poisonId,
              type: 'TemplateCreated',
              data: { name: 42 },
              metadata: rawMetadata(),
            },
          ],
          {
            expectedRevision: 'no_stream',
          },
        );
        await writeHistory(spine, 2, 'later');
        // The rebuild reads the projection's own events: the one before the poison is the last template event before it.
        const own = await readAllCommitted(spine.store, { limit: 10_000, types: [...templatesProjection.handles] });
        const previous = own.filter((e) => e.position < poison.position).at(-1)?.position;
        // Rows go quiet after 3 events: background writes are under way when the poison event comes.
        const failure: unknown = await rebuild({ batchSize: 2, replayTuning: { quietEvents: 3 } }).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(PoisonEvent);
        expect(failure).toMatchObject({ event: { eventId: poisonId }, before: previous });
        expect(await dumpTables(spine.pool, TABLES)).toEqual(before);
        // Nothing of it is left: its shadow schema went with it.
        const { rows: schemas } = await spine.pool.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild\\_%'");
        expect(schemas).toEqual([]);
        // The next rebuild still runs (and meets the same event).
        await expect(rebuild()).rejects.toMatchObject({ event: { eventId: poisonId } });
      });
    });
  });
}
