import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAsStored } from '../../src/events/store/as-stored.js';
import {
  UnconfirmedBatch,
  type BatchCheck,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type StreamWrite,
  type SubscribeOptions,
} from '../../src/events/store/port.js';
import { createPostgresEventStore } from '../../src/events/store/postgres.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { readAllCommitted } from '../support/spine.js';

/*
 * This process's own appends offered to a subscription before they are read back (ownAppends,
 * src/events/store/port.ts BatchCheck): the events as the log holds them, and the check that
 * confirms a batch is the log's page (migration 041).
 */

/** Values whose jsonb form differs from their JSON text: key order (length, then bytes), numbers, escapes. */
const TRICKY: readonly unknown[] = [
  { team: 'web', env: 'prod', a: 1, bb: { zz: 1, y: [{ long_key: 1, k: 2 }] } },
  { é: 1, z: 2, ü1: 3, aa: 4, '10': 5, '9': 6, b: 7 },
  { '\u{1F600}': 'emoji', '\uE000': 'private use', ab: 'x', 'a\nb': 'newline', '"q"': 'quoted' },
  { numbers: [0.1, 1e21, -0, 123456789012345680000, 5e-324, 1.5e-7, -42, 2 ** 53 + 2] },
  { text: 'tab\tline\u2028sep "quotes" \\ back \u00e9\u{1F680}', empty: {}, nothing: null, list: [] },
  JSON.parse('{"__proto__": {"polluted": true}, "b": 1}'),
];

const noted = (data: Record<string, unknown>): NewEvent => ({ eventId: randomUUID(), type: 'Noted', data, metadata: { zz: 1, a: 'b' } });

/** An event as compared here: every field, data and metadata as text (so key order counts), the clock left out. */
const comparable = (e: RecordedEvent) => ({
  eventId: e.eventId,
  type: e.type,
  streamId: e.streamId,
  streamRevision: e.streamRevision,
  position: e.position,
  data: JSON.stringify(e.data),
  metadata: JSON.stringify(e.metadata),
});

/** Waits on what a subscription delivered: `poke()`, after each batch, settles the waits whose condition now holds. */
function deliveries() {
  const waits = new Set<{ done: () => boolean; resolve: () => void }>();
  return {
    poke: (): void => {
      for (const wait of waits)
        if (wait.done()) {
          waits.delete(wait);
          wait.resolve();
        }
    },
    until: (done: () => boolean): Promise<void> => (done() ? Promise.resolve() : new Promise((resolve) => waits.add({ done, resolve }))),
  };
}

for (const target of databaseTargets()) {
  describe(`own appends offered before they are read back (${target.name})`, () => {
    let db: TestDatabase;
    let store: EventStore;

    beforeEach(async () => {
      db = await target.create();
      store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 60_000 });
    });
    afterEach(async () => {
      await store.close();
      await db.close();
    });

    /** Runs a batch's check: undefined when it holds, the SQLSTATE when it does not. */
    const run = (check: BatchCheck): Promise<string | undefined> =>
      db.pool.query(check.statement()).then(
        () => undefined,
        (error: unknown) => (error as { code?: string }).code,
      );

    /**
     * A check that holds, once the log's readable bound allows: another test's transaction on the
     * server that ends just as the bound is read holds it back for that instant (the hub then reads
     * the page back). Run again at once: by then that moment has passed.
     */
    async function holds(check: BatchCheck): Promise<string | undefined> {
      let code = await run(check);
      for (let i = 0; i < 50 && code === 'IL003'; i++) code = await run(check);
      return code;
    }

    /**
     * Subscribes with own appends offered, once the log holds one event: the subscription's first
     * read delivers it (not passed on) and finds the log caught up, so that from then on its own
     * appends come at once. Resolves once that read was delivered; `poke` runs after each later batch.
     */
    async function subscribeCaughtUp(onBatch: SubscribeOptions['onBatch'], poke: () => void) {
      const { position: seed } = await store.append(`seed-${randomUUID()}`, [noted({ seed: true })], { expectedRevision: 'no_stream' });
      let caughtUp!: () => void;
      const ready = new Promise<void>((resolve) => (caughtUp = resolve));
      const subscription = store.subscribe({
        batchSize: 100,
        ownAppends: true,
        onBatch: async (events, readAhead, check) => {
          if (events.at(-1)?.position === seed) return caughtUp();
          await onBatch(events, readAhead, check);
          poke();
        },
      });
      await ready;
      return { subscription, seed };
    }

    it('gives each value back as the stored jsonb reads: keys in its order, numbers and text the same', async () => {
      for (const value of TRICKY) {
        const text = JSON.stringify(value);
        const { rows } = await db.pool.query<{ v: unknown }>('SELECT $1::jsonb AS v', [text]);
        const parsed = parseAsStored(text);
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(rows[0]?.v));
        expect(parsed).toEqual(rows[0]?.v);
      }
      // A `__proto__` key stays a key: the object's prototype is not set from the data.
      const proto = parseAsStored('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
      expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
      expect(Object.keys(proto)).toEqual(['__proto__']);
    });

    it('offers its appends, alone and grouped, as the log holds them, each batch with a check that holds', async () => {
      const batches: { events: readonly RecordedEvent[]; check: BatchCheck | undefined }[] = [];
      let reads = 0;
      const delivered = deliveries();
      const { subscription, seed } = await subscribeCaughtUp((events, _readAhead, check) => {
        if (check) batches.push({ events, check });
        else reads++;
        return Promise.resolve();
      }, delivered.poke);
      const writes: StreamWrite[][] = TRICKY.map((value, i) => [
        {
          streamId: `own-${i}-${randomUUID()}`,
          expectedRevision: 'no_stream',
          events: [noted(value as Record<string, unknown>), noted({ i })],
        },
        { streamId: `own-reserved-${randomUUID()}`, expectedRevision: 'any', events: [noted({ reserved: i })] },
      ]);
      // Started together: the first goes alone, the rest as one group (src/events/store/postgres.ts).
      await Promise.all(writes.map((w) => store.appendMany(w)));
      const written = writes.flat().reduce((n, w) => n + w.events.length, 0);
      await delivered.until(() => batches.reduce((n, b) => n + b.events.length, 0) >= written);
      await subscription.stop();
      const offered = batches.flatMap((b) => b.events);
      const stored = await readAllCommitted(store, { after: seed, limit: 1000 });
      expect(offered.map(comparable)).toEqual(stored.map(comparable));
      expect(reads).toBe(0);
      expect(batches.length).toBeGreaterThan(1);
      for (const { check } of batches) if (check) expect(await holds(check)).toBeUndefined();
    });

    it('fails the check of a batch that is not the whole page, which the consumer answers with UnconfirmedBatch', async () => {
      const seen: { positions: bigint[]; checked: boolean }[] = [];
      let refused = 0;
      const delivered = deliveries();
      const { subscription } = await subscribeCaughtUp(async (events, _readAhead, check) => {
        if (check && refused === 0) {
          // As if an event of this batch were not there: the count no longer matches.
          const short: BatchCheck = { statement: () => check.statement().replace(/, (\d+)\)$/, (_, n: string) => `, ${Number(n) + 1})`) };
          expect(await run(short)).toBe('IL003');
          refused++;
          throw new UnconfirmedBatch();
        }
        seen.push({ positions: events.map((e) => e.position), checked: check !== undefined });
      }, delivered.poke);
      const { position } = await store.append(`own-${randomUUID()}`, [noted({ a: 1 })], { expectedRevision: 'no_stream' });
      await delivered.until(() => seen.length > 0);
      await subscription.stop();
      // The page was read back and delivered without a check: the event once.
      expect(refused).toBe(1);
      expect(seen).toEqual([{ positions: [position], checked: false }]);
    });

    if (target.name === 'postgres')
      it('fails the check while an older transaction may still append below the batch, and delivers both events in order after it ends', async () => {
        const codes: (string | undefined)[] = [];
        const delivered: bigint[] = [];
        const progress = deliveries();
        const { subscription } = await subscribeCaughtUp(async (events, _readAhead, check) => {
          if (check) {
            const code = await run(check);
            codes.push(code);
            progress.poke();
            if (code !== undefined) throw new UnconfirmedBatch();
          }
          delivered.push(...events.map((e) => e.position));
        }, progress.poke);
        const older = new pg.Client({ connectionString: db.url });
        await older.connect();
        try {
          await older.query('BEGIN');
          // Its transaction id now: lower than the append below, so its event will land before it.
          await older.query('SELECT pg_current_xact_id()');
          const mine = await store.append(`own-${randomUUID()}`, [noted({ mine: true })], { expectedRevision: 'no_stream' });
          await progress.until(() => codes.length > 0);
          expect(codes[0]).toBe('IL003');
          expect(delivered).toEqual([]);
          const { rows } = await older.query<{ last_position: string }>(
            `SELECT last_position::text FROM infraledger_append(ARRAY[$1], ARRAY['no_stream'], '{1}', ARRAY[$2]::uuid[], ARRAY['Noted'], ARRAY['{}']::jsonb[], ARRAY['{}']::jsonb[])`,
            [`older-${randomUUID()}`, randomUUID()],
          );
          await older.query('COMMIT');
          const theirs = BigInt(rows[0]?.last_position ?? '0');
          expect(theirs).toBeLessThan(mine.position);
          await progress.until(() => delivered.length >= 2);
          await subscription.stop();
          expect(delivered).toEqual([theirs, mine.position]);
        } finally {
          await older.end();
        }
      });
  });
}
