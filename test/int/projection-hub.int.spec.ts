import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/commands/handler.js';
import { integrationAggregate } from '../../src/commands/integration.js';
import { projectionLockKey } from '../../src/projections/apply.js';
import { ProjectionHub, type ProjectionLane } from '../../src/projections/hub.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { allProjections } from '../../src/projections/registry.js';
import { createPositionWaiter } from '../../src/projections/waiter.js';
import { integrationFixtures } from '../../src/cli/seed/fixtures.js';
import { createPgPool, type SqlPool } from '../../src/storage/pool.js';
import { interceptClients } from '../support/client-hook.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine } from '../support/spine.js';
import { dyingPool, FIXED_START, rawMetadata, writeHistory } from '../support/template-history.js';

/** Resolves once every lane has applied everything up to `position`. */
async function allReached(lanes: readonly ProjectionLane[], position: bigint): Promise<void> {
  for (const lane of lanes) {
    while (lane.position === undefined || lane.position < position) {
      await new Promise<void>((resolve) => lane.progress.once('position', () => resolve()));
    }
  }
}

/** A pool that counts the transactions begun through it. */
function countingPool(pool: SqlPool): { pool: SqlPool; transactions: () => number } {
  let begun = 0;
  return {
    transactions: () => begun,
    pool: interceptClients(pool, (text, send) => {
      if (text.startsWith('BEGIN')) begun++;
      return send();
    }),
  };
}

/** A pool that records the text of every statement sent through its clients. */
function recording(pool: SqlPool): { pool: SqlPool; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    pool: interceptClients(pool, (text, send) => {
      statements.push(text);
      return send();
    }),
  };
}

for (const target of databaseTargets()) {
  describe(`the projection hub on ${target.name}`, () => {
    let spine: Spine;
    beforeEach(async () => {
      spine = await openSpine(target);
    });
    afterEach(async () => spine.close());

    const hubOn = (pool: SqlPool, batchSize = 7) =>
      new ProjectionHub(allProjections, {
        pool,
        store: spine.store,
        codec: spine.codec,
        log: spine.log,
        batchSize,
        retryDelayMs: 10,
        idleFlushMs: 10,
      });

    type IntegrationFields = ReturnType<typeof integrationFixtures>[number];

    /** Creates an integration with `fields` at `at`: its id and the position its events reached. */
    async function createIntegrationOf(fields: IntegrationFields, at = FIXED_START): Promise<{ id: string; position: bigint }> {
      const id = randomUUID();
      const { position } = await executeCommand(
        spine.deps,
        integrationAggregate,
        id,
        { type: 'Create', data: { ...fields, id, status: 'enabled' } },
        { actorId: null, correlationId: randomUUID(), causationId: null, now: new Date(at) },
      );
      if (position === undefined) throw new Error('the create wrote nothing');
      return { id, position };
    }

    /** Templates and integrations (two projections plus the audit log), interleaved. */
    async function writeMixedHistory(): Promise<bigint> {
      let last = await writeHistory(spine, 12);
      for (const [i, fields] of integrationFixtures(`hub-${randomUUID().slice(0, 6)}`).entries()) {
        last = (await createIntegrationOf(fields, FIXED_START + i * 1000)).position;
      }
      await writeHistory(spine, 12, 'second');
      return (await spine.store.headPosition()) ?? last;
    }

    const everyTable = allProjections.flatMap((p) => p.tables);

    /**
     * Rebuilds every projection from the log. A rebuild replays what is readable when it starts: one
     * that started while another test's transaction on the server held the bound back for an instant
     * ends short, and is run again at once, as an operator would.
     */
    async function rebuildEach(): Promise<void> {
      const newest = await spine.store.lastPosition();
      for (const projection of allProjections) {
        for (let attempt = 1; attempt <= 50; attempt++) {
          const { position } = await rebuildProjection(
            { pool: spine.pool, store: spine.store, codec: spine.codec, log: spine.log, batchSize: 50 },
            projection,
          );
          if (newest === undefined || (position !== undefined && position >= newest)) break;
        }
      }
    }

    describe('when the process dies in the middle of a shared batch', () => {
      it('restarts every projection from its checkpoint and ends with the tables of a rebuild of each', async () => {
        const head = await writeMixedHistory();
        let died!: () => void;
        const death = new Promise<void>((resolve) => (died = resolve));
        const doomed = hubOn(dyingPool(spine.pool, 3, () => died()));
        doomed.start();
        await death;
        await doomed.stop();
        const { rows } = await spine.pool.query<{ position: string | null }>(
          "SELECT position FROM projection_checkpoints WHERE name = 'templates'",
        );
        expect(BigInt(rows[0]?.position ?? '0')).toBeLessThan(head);

        const restarted = hubOn(spine.pool);
        restarted.start();
        await allReached(restarted.projections, head);
        await restarted.stop();
        const afterRestart = await dumpTables(spine.pool, everyTable);
        await rebuildEach();
        expect(await dumpTables(spine.pool, everyTable)).toEqual(afterRestart);
        expect((afterRestart.templates ?? []).length).toBe(24);
        expect((afterRestart.integrations ?? []).length).toBe(integrationFixtures('x').length);
      });
    });

    describe('when commands run while the hub runs', () => {
      /** Creates an integration (the first fixture named after `name`): its id, fields and the position its events reached. */
      async function createIntegration(name: string, at = FIXED_START) {
        const [fields] = integrationFixtures(name);
        if (!fields) throw new Error('no integration fixture');
        return { ...(await createIntegrationOf(fields, at)), fields };
      }

      /** A hub on a recording pool, running its projections, and a waiter whose reads its batches may answer. */
      async function followingHub() {
        const { pool, statements: sent } = recording(spine.pool);
        const hub = hubOn(pool, 50);
        hub.start();
        // Once the hub runs its projections (a read is registered only with a running one).
        await allReached(hub.projections, await writeHistory(spine, 1));
        const waitFor = createPositionWaiter({
          pool: spine.pool,
          runners: hub.projections,
          timeoutMs: 30_000,
          follow: (read, position, names) => hub.follow(read, position, names),
        });
        return { hub, sent, waitFor };
      }

      it('answers read-your-writes exactly: each write is in its table the moment the waiter lets it through', async () => {
        const hub = hubOn(spine.pool, 50);
        hub.start();
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: hub.projections, timeoutMs: 30_000 });
        await Promise.all(
          Array.from({ length: 8 }, async (_, writer) => {
            for (let i = 0; i < 5; i++) {
              const { id, position } = await createIntegration(`w${writer}-${i}`);
              await waitFor(['integrations'], position);
              const { rows } = await spine.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM integrations WHERE id = $1', [id]);
              expect(rows[0]?.n).toBe(1);
            }
          }),
        );
        await hub.stop();
      });

      it("answers a writer's read in the message of the batch that projects the write, after its COMMIT (PostgreSQL; PGlite: the writer reads)", async () => {
        const { hub, sent, waitFor } = await followingHub();
        for (let i = 0; i < 3; i++) {
          const { id, fields, position } = await createIntegration(`follow-${i}`, FIXED_START + i * 1000);
          const text = 'SELECT id::text AS id, name FROM integrations WHERE id = $1';
          const rows = await waitFor(['integrations'], position, { read: { text, parameters: [id], projections: ['integrations'] } });
          if (target.name !== 'postgres') {
            expect(rows).toBeUndefined();
            continue;
          }
          expect(rows).toEqual([{ id, name: fields.name }]);
          const batch = sent.filter((statement) => statement.startsWith('BEGIN')).at(-1) ?? '';
          expect(batch).toMatch(
            new RegExp(
              `;\\s*COMMIT;\\s*(SELECT [^;]+ FROM infraledger_read_page\\([^;]+;\\s*)?(DO \\$prepare\\$ BEGIN EXECUTE 'PREPARE il_follow_[0-9a-f]+ AS [^;]+; EXCEPTION [^;]+; END \\$prepare\\$;\\s*)?EXECUTE il_follow_[0-9a-f]+\\('${id}'\\)$`,
            ),
          );
        }
        await hub.stop();
      });

      // PGlite's hub sends no follow-up reads (see above).
      if (target.name === 'postgres')
        it("given a writer's read that fails after the batch's COMMIT, when the wait ends, then the batch is kept, nothing stops, and the writer reads alone", async () => {
          const { hub, sent, waitFor } = await followingHub();
          // A read that cannot be prepared: the batch's message fails after its COMMIT.
          const broken = await createIntegration('broken');
          const read = {
            text: 'SELECT no_such_column FROM integrations WHERE id = $1',
            parameters: [broken.id],
            projections: ['integrations'],
          };
          await expect(waitFor(['integrations'], broken.position, { read })).resolves.toBeUndefined();
          const { rows } = await spine.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM integrations WHERE id = $1', [broken.id]);
          expect(rows[0]?.n).toBe(1);
          expect(hub.projections.filter((lane) => lane.state === 'failed')).toEqual([]);
          // It did ride in the batch's message, after the COMMIT.
          expect(sent.some((text) => /COMMIT;[\s\S]*no_such_column/.test(text))).toBe(true);
          // The hub goes on applying, and answers the next writer's read.
          const next = await createIntegration('after');
          const text = 'SELECT id::text AS id FROM integrations WHERE id = $1';
          await expect(
            waitFor(['integrations'], next.position, { read: { text, parameters: [next.id], projections: ['integrations'] } }),
          ).resolves.toEqual([{ id: next.id }]);
          await hub.stop();
        });

      it("runs projections' inserts as statements prepared once per connection and, given a connection that lost them, prepares them again after one refused message, losing nothing (PostgreSQL; PGlite: written inline)", async () => {
        let dropPrepared = false;
        let dropped = 0;
        let droppedAt = 0;
        const sent: string[] = [];
        // On PostgreSQL the hub gets one connection of its own: the batch after the refused one then
        // runs where the statements were lost (with the shared pool another connection, which still
        // has them, may take every later batch, and nothing would need preparing again).
        const own = spine.db.url && target.name === 'postgres' ? createPgPool({ connectionString: spine.db.url, max: 1 }) : undefined;
        const pool = interceptClients(own ?? spine.pool, async (text, send, client) => {
          // As a connection reset would: the hub still believes the statements are there.
          if (dropPrepared && text.startsWith('BEGIN') && text.includes('EXECUTE il_write_') && !text.includes('PREPARE il_write_')) {
            dropPrepared = false;
            const { rows } = await client.query<{ name: string }>(
              "SELECT name FROM pg_prepared_statements WHERE name LIKE 'il\\_write\\_%'",
            );
            for (const { name } of rows) await client.query(`DEALLOCATE ${name}`);
            dropped = rows.length;
            droppedAt = sent.length;
          }
          sent.push(text);
          return send();
        });
        const hub = hubOn(pool, 50);
        hub.start();
        await allReached(hub.projections, await writeHistory(spine, 1));
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: hub.projections, timeoutMs: 30_000 });
        for (let i = 0; i < 6; i++) {
          if (i === 3) dropPrepared = target.name === 'postgres';
          const { id, position } = await createIntegration(`prepared-${i}`, FIXED_START + i * 1000);
          await waitFor(['integrations', 'audit_log'], position);
          const { rows } = await spine.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM integrations WHERE id = $1', [id]);
          expect(rows[0]?.n).toBe(1);
        }
        expect(hub.projections.filter((lane) => lane.state === 'failed')).toEqual([]);
        await hub.stop();
        await own?.end();
        const batches = sent.filter((text) => text.startsWith('BEGIN'));
        if (target.name === 'postgres') {
          expect(dropped).toBeGreaterThan(0);
          // Every batch that writes does so through EXECUTE under a generic plan, some without preparing first
          // (under load a message may carry only a batch's opening, its checkpoints' claim: it writes nothing).
          const writing = batches.filter((batch) => batch.includes('il_write_') || /\bINSERT INTO\b/.test(batch));
          for (const batch of writing.slice(-4))
            expect(batch).toMatch(/force_generic_plan;\s*(DO \$prepare\$[\s\S]*?END \$prepare\$;\s*)*EXECUTE il_write_[0-9a-f]+\('/);
          expect(batches.some((batch) => /force_generic_plan;\s*EXECUTE il_write_[0-9a-f]+\('/.test(batch))).toBe(true);
          // Prepared once per connection, and once more where they were lost.
          const prepares = batches.filter((text) => text.includes('PREPARE il_write_')).length;
          expect(prepares).toBeLessThan(batches.length);
          expect(sent.slice(droppedAt + 1).some((text) => text.startsWith('BEGIN') && text.includes('PREPARE il_write_'))).toBe(true);
        } else {
          expect(batches.some((text) => text.includes('il_write_'))).toBe(false);
        }
        const applied = await dumpTables(spine.pool, everyTable);
        await rebuildEach();
        expect(await dumpTables(spine.pool, everyTable)).toEqual(applied);
      });

      it('waits only on the projections named: a stopped one does not hold the others back', async () => {
        const hub = hubOn(spine.pool, 50);
        hub.start();
        const head = await writeHistory(spine, 3);
        await allReached(hub.projections, head);
        // A poison event (written around the codec) stops templates and the audit log; users and sessions go on.
        await spine.store.append(
          `template-${randomUUID()}`,
          [
            {
              eventId: randomUUID(),
              type: 'TemplateCreated',
              data: { name: 42 },
              metadata: rawMetadata(),
            },
          ],
          {
            expectedRevision: 'no_stream',
          },
        );
        const more = await writeHistory(spine, 2, 'later');
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: hub.projections, timeoutMs: 30_000 });
        await waitFor(['users', 'sessions'], more);
        await expect(waitFor(['templates'], more)).rejects.toMatchObject({ code: 'READ_MODEL_STOPPED' });
        await hub.stop();
      });
    });

    // PGlite is one session: a lock it holds is its own. Another process needs a server.
    if (target.name === 'postgres')
      describe('when another process holds a projection', () => {
        it('stands that projection by (its one-message batch refused, the explicit one finding out why), then takes it up again', async () => {
          const other = new pg.Client({ connectionString: spine.db.url });
          await other.connect();
          try {
            await other.query('SELECT pg_advisory_lock($1)', [projectionLockKey('templates')]);
            const hub = hubOn(spine.pool, 1000);
            hub.start();
            const head = await writeHistory(spine, 3);
            const lane = (name: string) => hub.projections.find((l) => l.projection.name === name);
            // The audit log goes on; templates stands by while the other process holds it (set in the batch
            // that moves the audit log last: every batch with audit entries here has template events too).
            const audit = lane('audit_log');
            if (!audit) throw new Error('no audit_log lane');
            await allReached([audit], head);
            expect(lane('templates')?.state).toBe('standby');
            expect((await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates')).rows[0]?.n).toBe('0');
            await other.query('SELECT pg_advisory_unlock($1)', [projectionLockKey('templates')]);
            await allReached(hub.projections, head);
            expect((await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates')).rows[0]?.n).toBe('3');
            await hub.stop();
          } finally {
            await other.end();
          }
        });
      });

    describe('when a write held for the COMMIT fails', () => {
      it('names its event as the poison event, keeping the rest of the batch', async () => {
        const head = await writeHistory(spine, 3);
        const [original] = (await spine.store.readAll({ limit: 1000 })).filter((e) => e.type === 'TemplateCreated');
        if (!original) throw new Error('no TemplateCreated written');
        // Written around the command handler: a creation dated in the year 0, which the codec accepts
        // and only PostgreSQL refuses (no such timestamp), when the batch's held inserts are sent.
        const poisonId = randomUUID();
        await spine.store.append(
          `template-${randomUUID()}`,
          [
            {
              eventId: poisonId,
              type: 'TemplateCreated',
              data: original.data,
              metadata: { ...original.metadata, occurredAt: '0000-01-01T00:00:00Z' },
            },
          ],
          { expectedRevision: 'no_stream' },
        );
        const { pool, statements } = recording(spine.pool);
        const hub = hubOn(pool, 1000);
        const stopped = ['templates', 'audit_log'].map((name) => {
          const lane = hub.projections.find((l) => l.projection.name === name);
          return new Promise<void>((resolve) => lane?.progress.once('failed', () => resolve()));
        });
        hub.start();
        await Promise.all(stopped);
        await hub.stop();
        // The batch's inserts went with its COMMIT, in one message: that message failed, not applyBatch.
        expect(statements.some((text) => text.includes('INSERT INTO templates') && text.includes('COMMIT'))).toBe(true);
        const { rows } = await spine.pool.query<{ name: string; status: string; failed_event_id: string; error: string; position: string }>(
          "SELECT name, status, failed_event_id, error, position FROM projection_checkpoints WHERE name IN ('templates', 'audit_log') ORDER BY name",
        );
        for (const row of rows) {
          expect(row).toMatchObject({ status: 'failed', failed_event_id: poisonId });
          expect(row.error).toContain(`projection failed on event ${poisonId} (TemplateCreated)`);
          expect(BigInt(row.position)).toBe(head);
        }
        expect(rows).toHaveLength(2);
        const { rows: count } = await spine.pool.query<{ n: string }>('SELECT count(*) AS n FROM templates');
        expect(Number(count[0]?.n)).toBe(3);
      });
    });

    describe('when its checkpoints move under it (another replica, a rebuild)', () => {
      it('keeps applying after a resync asked for while the checkpoints were loading again', async () => {
        // Loading the checkpoints takes longer than the check interval (10 ms): checks run meanwhile.
        const slowReload: SqlPool = {
          ...spine.pool,
          dialect: spine.pool.dialect,
          query: async (text, params) => {
            if (text.startsWith('INSERT INTO projection_checkpoints')) await new Promise((resolve) => setTimeout(resolve, 150));
            return spine.pool.query(text, params);
          },
        };
        const hub = hubOn(slowReload, 50);
        hub.start();
        await allReached(hub.projections, await writeHistory(spine, 2));
        // As another replica's batch would: the checkpoints are no longer where this hub left them.
        await spine.pool.query("UPDATE projection_checkpoints SET position = NULL WHERE name = 'templates'");
        const later = await writeHistory(spine, 2, 'later');
        const waitFor = createPositionWaiter({ pool: spine.pool, runners: hub.projections, timeoutMs: 10_000 });
        await waitFor(
          allProjections.map((p) => p.name),
          later,
        );
        const { rows } = await spine.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM templates WHERE name LIKE 'later%'");
        expect(rows[0]?.n).toBe(2);
        await hub.stop();
      });
    });

    if (target.name === 'postgres') {
      describe('while a batch transaction is open', () => {
        it('holds no reader of $all back (another replica, a subscription): the transaction is marked as never appending', async () => {
          let readable: boolean | undefined;
          const pool = interceptClients(spine.pool, async (text, send, client) => {
            if (readable !== undefined || !text.startsWith('BEGIN')) return send();
            // The batch transaction is held open after its claim and writes: everything but its COMMIT
            // is sent, the probe runs, then the COMMIT. It has locked its checkpoints: it holds a transaction id.
            const opening = text.trimEnd().endsWith('COMMIT') ? text.trimEnd().slice(0, -'COMMIT'.length) : text;
            const result = await client.query(opening);
            const appended = await spine.store.append(
              `probe-${randomUUID()}`,
              [{ eventId: randomUUID(), type: 'Probed', data: {}, metadata: {} }],
              { expectedRevision: 'no_stream' },
            );
            // The batch transaction stays open throughout (this hook holds its statement). Another
            // database's transaction on the server may hold the bound back for an instant, so the
            // read is tried a few times; a batch transaction that held readers back fails them all.
            readable = false;
            for (let tries = 0; tries < 20 && !readable; tries++) {
              const seen = await spine.store.readAll({ after: appended.position - 1n, limit: 1 });
              readable = seen[0]?.position === appended.position;
              if (!readable) await new Promise((resolve) => setTimeout(resolve, 25));
            }
            if (opening !== text) await client.query('COMMIT');
            return result;
          });
          const hub = hubOn(pool, 1000);
          const head = await writeHistory(spine, 3);
          hub.start();
          await allReached(hub.projections, head);
          await hub.stop();
          expect(readable).toBe(true);
        });
      });
    }

    describe("when this process's own appends come before they are read back", () => {
      /** A pool recording each batch's text and the SQLSTATE of every statement that failed. */
      function watching(pool: SqlPool) {
        const batches: string[] = [];
        const failures: string[] = [];
        let failed: (() => void) | undefined;
        return {
          batches,
          failures,
          /** Resolves at the next failed statement (or at once when one failed already). */
          aFailure: () => (failures.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => (failed = resolve))),
          pool: interceptClients(pool, (text, send) => {
            if (text.startsWith('BEGIN')) batches.push(text);
            return send().catch((error: unknown) => {
              failures.push(String((error as { code?: unknown }).code));
              failed?.();
              throw error;
            });
          }),
        };
      }

      it('applies them in batches confirmed in their own transaction, ending with the tables of a rebuild', async () => {
        const watched = watching(spine.pool);
        const hub = hubOn(watched.pool, 50);
        hub.start();
        await allReached(hub.projections, await writeHistory(spine, 1));
        // Writes made together, as a busy service makes them: appended alone and in groups. The hub
        // offers its own appends only once a read found the log caught up; another test's transaction
        // on the server may hold such a read back, and the hub then reads the pages: tried again.
        const confirmedBatches = () =>
          watched.batches.filter((text) =>
            /^BEGIN; SELECT pg_advisory_xact_lock_shared\([^)]*\);\nSELECT infraledger_confirm_page\(/.test(text),
          );
        let attempts = 0;
        while (attempts < 5 && confirmedBatches().length === 0) {
          attempts++;
          const written = await Promise.all(
            integrationFixtures(`own-${randomUUID().slice(0, 6)}`).map(
              async (fields, i) => (await createIntegrationOf(fields, FIXED_START + i * 1000)).position,
            ),
          );
          await allReached(
            hub.projections,
            written.reduce((a, b) => (a > b ? a : b)),
          );
        }
        await hub.stop();
        // The check comes first after BEGIN and the transaction's mark, before the claim.
        expect(confirmedBatches().length).toBeGreaterThan(0);
        const live = await dumpTables(spine.pool, everyTable);
        await rebuildEach();
        expect(await dumpTables(spine.pool, everyTable)).toEqual(live);
        expect((live.integrations ?? []).length).toBe(attempts * integrationFixtures('x').length);
      });

      if (target.name === 'postgres')
        it('given an older transaction that may still append below them, then their batch is refused, nothing kept, and the page read back once it ends', async () => {
          const watched = watching(spine.pool);
          const hub = hubOn(watched.pool, 50);
          hub.start();
          await allReached(hub.projections, await writeHistory(spine, 1));
          // The hub offers its own appends only once a read found the log caught up: if another
          // transaction on the server held that read back just then, it reads the pages instead. So
          // the scenario is tried again, with a new older transaction, until a batch was refused.
          for (let attempt = 0; attempt < 5 && !watched.failures.includes('IL003'); attempt++) {
            const older = new pg.Client({ connectionString: spine.db.url });
            await older.connect();
            try {
              await older.query('BEGIN');
              await older.query('SELECT pg_current_xact_id()');
              const head = await writeHistory(spine, 2, `behind${attempt}`);
              // The batch of these appends fails its check (IL003) and rolls back: nothing of it is kept.
              // A hub that reads the pages instead shows nothing until the older transaction ends:
              // one deadline, then the next attempt.
              await Promise.race([watched.aFailure(), delay(2000)]);
              const { rows } = await spine.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates WHERE name LIKE $1', [
                `behind${attempt}%`,
              ]);
              expect(rows[0]?.n).toBe(0);
              await older.query('COMMIT');
              await allReached(hub.projections, head);
            } finally {
              await older.end();
            }
          }
          expect(watched.failures).toContain('IL003');
          await hub.stop();
          const live = await dumpTables(spine.pool, everyTable);
          await rebuildEach();
          expect(await dumpTables(spine.pool, everyTable)).toEqual(live);
        });
    });

    describe('when events concern only some projections', () => {
      it('moves every checkpoint with one message per batch, writing there only those it applies, the idle ones after', async () => {
        const counting = countingPool(spine.pool);
        const { pool, statements: sent } = recording(counting.pool);
        const hub = hubOn(pool, 1000);
        const head = await writeHistory(spine, 10);
        const events = await spine.store.countAfter(undefined, 10_000);
        const types = new Set((await spine.store.readAll({ limit: 10_000 })).map((e) => e.type));
        hub.start();
        await allReached(hub.projections, head);
        // One batch of everything: at most one transaction (plus none per idle projection).
        expect(events).toBeGreaterThan(10);
        expect(counting.transactions()).toBe(1);
        // Its COMMIT moves only the checkpoints of projections that handle the batch's events.
        const applying = allProjections.filter((p) => [...types].some((type) => p.handles.has(type))).map((p) => p.name);
        expect(applying.length).toBeLessThan(allProjections.length);
        // One round trip: BEGIN, the claim of locks and checkpoints (checked and moved), the projections'
        // writes, COMMIT, and the read of the page after the batch.
        const batches = sent.filter((text) => text.startsWith('BEGIN'));
        expect(batches).toHaveLength(1);
        const [inBatch] = batches;
        expect(inBatch).toContain('INSERT INTO templates');
        expect(inBatch).toContain('INSERT INTO audit_log');
        expect(inBatch).toMatch(new RegExp(`;\\s*COMMIT;\\s*SELECT [a-z_, ]+ FROM infraledger_read_page\\(${String(head)}, \\d+\\)$`));
        const claimed = /infraledger_claim_projections\('\{([a-z_,]+)\}'::text\[\]/.exec(inBatch ?? '')?.[1]?.split(',');
        expect(claimed?.sort()).toEqual(applying.sort());
        await hub.stop();
        const { rows } = await spine.pool.query<{ name: string; position: string | null }>(
          'SELECT name, position FROM projection_checkpoints ORDER BY name',
        );
        expect(rows.map((r) => r.name)).toEqual(allProjections.map((p) => p.name).sort());
        for (const row of rows) expect(row.position).toBe(String(head));
      });

      it('writes the checkpoints a batch did not concern soon after it, for waits in other processes (they read the rows)', async () => {
        const hub = new ProjectionHub(allProjections, {
          pool: spine.pool,
          store: spine.store,
          codec: spine.codec,
          log: spine.log,
          batchSize: 1000,
        });
        hub.start();
        const head = await writeHistory(spine, 3);
        // As another replica waits (no lane of its own): users and sessions had nothing in these batches.
        const elsewhere = createPositionWaiter({ pool: spine.pool, runners: [], timeoutMs: 10_000, pollMs: 5 });
        await elsewhere(['templates', 'users', 'sessions'], head);
        await hub.stop();
      });

      it('moves the positions of a batch no projection handles at once, and writes the checkpoints in one statement', async () => {
        const counting = countingPool(spine.pool);
        const hub = hubOn(counting.pool, 1000);
        hub.start();
        const head = await writeHistory(spine, 2);
        await allReached(hub.projections, head);
        const before = counting.transactions();
        const { position } = await spine.store.append(
          `nothing-${randomUUID()}`,
          [{ eventId: randomUUID(), type: 'NothingToProject', data: {}, metadata: {} }],
          { expectedRevision: 'no_stream' },
        );
        await allReached(hub.projections, position);
        // The checkpoints follow without a transaction (one UPDATE a moment later).
        const checkpoints = async () =>
          (await spine.pool.query<{ position: string }>('SELECT position FROM projection_checkpoints')).rows.map((r) => r.position);
        while ((await checkpoints()).some((p) => p !== String(position))) await new Promise((resolve) => setImmediate(resolve));
        expect(counting.transactions()).toBe(before);
        await hub.stop();
      });
    });
  });
}
