import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamRevisionConflictError, type EventStore, type NewEvent, type RecordedEvent } from '../../src/events/store/port.js';

export interface ContractSubject {
  readonly store: EventStore;
  close(): Promise<void>;
}

const event = (type = 'ThingHappened', data: Record<string, unknown> = {}): NewEvent => ({
  eventId: randomUUID(),
  type,
  data: { ...data },
  metadata: { correlationId: randomUUID() },
});

/** Every adapter of the event store port must pass this suite unchanged. */
export function describeEventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`event store contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    afterAll(async () => subject.close());

    const stream = (): string => `contract_${randomUUID().replaceAll('-', '')}`;

    describe('when appending with an expected revision', () => {
      it('creates a stream expecting no stream and numbers revisions from 0', async () => {
        const id = stream();
        const result = await store.append(id, [event(), event()], { expectedRevision: 'no_stream' });
        expect(result.revisions.get(id)).toBe(1n);
        const read = await store.readStream(id);
        expect(read.map((e) => e.streamRevision)).toEqual([0n, 1n]);
        expect(read[1]?.position).toBe(result.position);
      });

      it('refuses no_stream when the stream exists', async () => {
        const id = stream();
        await store.append(id, [event()], { expectedRevision: 'no_stream' });
        await expect(store.append(id, [event()], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(StreamRevisionConflictError);
      });

      it('appends at the exact revision and refuses a stale one', async () => {
        const id = stream();
        await store.append(id, [event()], { expectedRevision: 'no_stream' });
        await store.append(id, [event()], { expectedRevision: 0n });
        const stale = store.append(id, [event()], { expectedRevision: 0n });
        await expect(stale).rejects.toBeInstanceOf(StreamRevisionConflictError);
        await expect(stale).rejects.toMatchObject({ code: 'CONCURRENT_MODIFICATION', streamId: id, actual: 1n });
      });

      it('appends anywhere with any, and stream_exists needs a stream', async () => {
        const id = stream();
        await expect(store.append(id, [event()], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
          StreamRevisionConflictError,
        );
        await store.append(id, [event()], { expectedRevision: 'any' });
        await store.append(id, [event()], { expectedRevision: 'any' });
        await store.append(id, [event()], { expectedRevision: 'stream_exists' });
        expect((await store.readStream(id)).length).toBe(3);
      });

      it('treats a retry with the same event ids as the original write', async () => {
        const id = stream();
        const batch = [event(), event()];
        const first = await store.append(id, batch, { expectedRevision: 'no_stream' });
        const retry = await store.append(id, batch, { expectedRevision: 'no_stream' });
        expect(retry.position).toBe(first.position);
        expect((await store.readStream(id)).length).toBe(2);
      });

      it('keeps data, metadata and type as written', async () => {
        const id = stream();
        const written = event('Typed', { nested: { list: [1, 'two', null] }, flag: true });
        await store.append(id, [written], { expectedRevision: 'no_stream' });
        const [read] = await store.readStream(id);
        expect(read).toMatchObject({
          eventId: written.eventId,
          type: 'Typed',
          data: written.data,
          metadata: written.metadata,
          streamId: id,
        });
        expect(read?.recordedAt).toBeInstanceOf(Date);
      });
    });

    describe('when reading', () => {
      it('answers [] for a stream that does not exist', async () => {
        expect(await store.readStream(stream())).toEqual([]);
      });

      it('reads $all forward from a position, in strictly increasing order', async () => {
        const head = (await store.headPosition()) ?? undefined;
        const id = stream();
        await store.append(id, [event(), event(), event()], { expectedRevision: 'no_stream' });
        const read = await store.readAll({ after: head, limit: 1000 });
        const mine = read.filter((e) => e.streamId === id);
        expect(mine.map((e) => e.streamRevision)).toEqual([0n, 1n, 2n]);
        expect((await store.lastPosition()) ?? -1n).toBeGreaterThanOrEqual(mine[2]?.position ?? 0n);
        assertStrictlyIncreasing(read);
        const second = mine[1];
        if (!second) throw new Error('missing event');
        const rest = await store.readAll({ after: second.position, limit: 1000 });
        expect(rest.filter((e) => e.streamId === id).map((e) => e.streamRevision)).toEqual([2n]);
      });

      it('reads only the types asked for, page after page past other events, and counts them alike', async () => {
        const head = await store.headPosition();
        const rare = `Rare${randomUUID().replaceAll('-', '')}`;
        const id = stream();
        // Pages of one: between and after the two rare events only other events follow.
        await store.append(id, [event(rare, { n: 1 }), event(), event(), event(), event(rare, { n: 2 }), event(), event()], {
          expectedRevision: 'no_stream',
        });
        const pages: unknown[][] = [];
        let after = head;
        for (;;) {
          const page = await store.readAll({ after, limit: 1, types: [rare] });
          const last = page.at(-1);
          if (!last) break;
          pages.push(page.map((e) => [e.type, e.data.n]));
          after = last.position;
        }
        expect(pages).toEqual([[[rare, 1]], [[rare, 2]]]);
        expect(await store.countAfter(head, 100, [rare])).toBe(2);
        expect(await store.countAfter(head, 1, [rare])).toBe(1);
        expect(await store.readAll({ after: head, limit: 10, types: [] })).toEqual([]);
      });

      /**
       * Waits (by reading, never by a timer) until every event up to `position` is readable: a
       * transaction still open elsewhere on the server may hold the readable bound back for a moment,
       * and two reads compared with each other must see the same log.
       */
      const readableUpTo = async (position: bigint): Promise<void> => {
        while (((await store.headPosition()) ?? -1n) < position);
      };

      it('hands over the events of readAll one at a time, with the same after, limit and types', async () => {
        const head = await store.headPosition();
        const rare = `Rare${randomUUID().replaceAll('-', '')}`;
        const { position } = await store.append(
          stream(),
          [event(rare, { n: 1 }), event(), event(rare, { n: 2 }), event(rare, { n: 3 }), event()],
          { expectedRevision: 'no_stream' },
        );
        await readableUpTo(position);
        for (const options of [
          { after: head, limit: 4 },
          { after: head, limit: 2, types: [rare] },
          { after: head, limit: 10, types: [rare] },
        ]) {
          // Two reads a moment apart may see different readable bounds (a transaction of another
          // database on the server can hold one back for an instant), so the pair is read again until
          // both saw the same log; a real difference stays and fails after the last try.
          let handed: RecordedEvent[] = [];
          let count = -1;
          let read: RecordedEvent[] = [];
          for (let tries = 0; tries < 20; tries++) {
            const each: RecordedEvent[] = [];
            count = await store.readAllEach(options, (e) => each.push(e));
            handed = each;
            read = await store.readAll(options);
            if (isDeepStrictEqual(handed, read)) break;
          }
          expect(handed).toEqual(read);
          expect(count).toBe(handed.length);
        }
        expect(await store.readAllEach({ after: await store.headPosition(), limit: 10 }, () => undefined)).toBe(0);
      });

      it('stops handing over at the first error the reader throws, rejects with it, and reads on afterwards', async () => {
        const head = await store.headPosition();
        await readableUpTo((await store.append(stream(), [event(), event(), event()], { expectedRevision: 'no_stream' })).position);
        const refused = new Error('the reader refuses this event');
        let seen = 0;
        await expect(
          store.readAllEach({ after: head, limit: 10 }, () => {
            seen++;
            throw refused;
          }),
        ).rejects.toBe(refused);
        expect(seen).toBe(1);
        expect(await store.readAllEach({ after: head, limit: 10 }, () => undefined)).toBe(3);
      });
    });

    if (store_atomic_hint(name)) {
      describe('when appending to several streams', () => {
        it('writes all or nothing', async () => {
          const a = stream();
          const b = stream();
          await store.append(b, [event()], { expectedRevision: 'no_stream' });
          const both = store.appendMany([
            { streamId: a, expectedRevision: 'no_stream', events: [event()] },
            { streamId: b, expectedRevision: 'no_stream', events: [event()] },
          ]);
          await expect(both).rejects.toBeInstanceOf(StreamRevisionConflictError);
          expect(await store.readStream(a)).toEqual([]);
        });
      });
    }

    describe('when 8 writers append 500 events each while a subscriber runs', () => {
      it('delivers all 4,000 exactly once, in strictly increasing position', async () => {
        const start = await store.headPosition();
        const tag = randomUUID();
        const seen: RecordedEvent[] = [];
        let resolveAll!: () => void;
        const all = new Promise<void>((resolve) => (resolveAll = resolve));
        const subscription = store.subscribe({
          after: start,
          batchSize: 250,
          onBatch: (events) => {
            for (const e of events) if (e.data.tag === tag) seen.push(e);
            if (seen.length >= 4000) resolveAll();
            return Promise.resolve();
          },
        });
        await Promise.all(
          Array.from({ length: 8 }, async (_, writer) => {
            const id = stream();
            for (let i = 0; i < 500; i++) {
              await store.append(id, [event('Counted', { tag, writer, i })], { expectedRevision: i === 0 ? 'no_stream' : BigInt(i - 1) });
            }
          }),
        );
        await all;
        await subscription.stop();
        expect(seen.length).toBe(4000);
        expect(new Set(seen.map((e) => e.eventId)).size).toBe(4000);
        assertStrictlyIncreasing(seen);
        for (let writer = 0; writer < 8; writer++) {
          expect(seen.filter((e) => e.data.writer === writer).map((e) => e.data.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
        }
      });
    });

    describe('when 32 writers append while a reader pages through $all', () => {
      it('never lets the reader pass an event that commits later: it sees every event, in strictly increasing position', async () => {
        const tag = randomUUID();
        const shared = stream();
        const start = await store.headPosition();
        const writers = { running: true };
        const seen: RecordedEvent[] = [];
        // The reader walks $all with its own cursor as fast as it can while the writers run, then drains.
        const reader = (async () => {
          let after = start;
          for (;;) {
            const finished = !writers.running;
            const page = await store.readAll({ after, limit: 100 });
            assertStrictlyIncreasing(page);
            if (page.length > 0 && after !== undefined && (page[0]?.position ?? 0n) <= after)
              throw new Error(`the reader went back: ${page[0]?.position} after ${after}`);
            for (const e of page) if (e.data.tag === tag) seen.push(e);
            after = page.at(-1)?.position ?? after;
            if (finished && page.length === 0) return;
          }
        })();
        try {
          await Promise.all(
            Array.from({ length: 32 }, async (_, writer) => {
              const own = stream();
              for (let i = 0; i < 40; i++) {
                // Every fifth append also adds to one stream all writers share, as `any` (reference records do).
                const events = Array.from({ length: 1 + (i % 3) }, (_, k) => event('Counted', { tag, writer, i, k }));
                const writes = [{ streamId: own, expectedRevision: i === 0 ? ('no_stream' as const) : ('stream_exists' as const), events }];
                if (i % 5 === 0)
                  writes.push({
                    streamId: shared,
                    expectedRevision: 'any' as const,
                    events: [event('Shared', { tag, writer, i })],
                  } as never);
                await store.appendMany(writes);
              }
            }),
          );
        } finally {
          writers.running = false;
        }
        await reader;
        const all: RecordedEvent[] = [];
        for (let after = start; ;) {
          const page = await store.readAll({ after, limit: 1000 });
          if (page.length === 0) break;
          all.push(...page.filter((e) => e.data.tag === tag));
          after = page.at(-1)?.position;
        }
        // Per writer: 1 + (i % 3) own events per append (79 over 40 appends) and 8 shared ones.
        expect(all.length).toBe(32 * (79 + 8));
        expect(seen.map((e) => e.eventId)).toEqual(all.map((e) => e.eventId));
        expect((await store.readStream(shared)).map((e) => e.streamRevision)).toEqual(Array.from({ length: 32 * 8 }, (_, i) => BigInt(i)));
      });
    });

    describe('when a subscription handler fails', () => {
      it('ends the subscription with that error', async () => {
        const subscription = store.subscribe({
          after: undefined,
          onBatch: () => Promise.reject(new Error('handler broke')),
        });
        await store.append(stream(), [event()], { expectedRevision: 'no_stream' });
        await expect(subscription.done).rejects.toThrow('handler broke');
      });
    });
  });
}

// Stores that cannot append to several streams atomically skip the all-or-nothing case only.
function store_atomic_hint(name: string): boolean {
  return !name.startsWith('eventstoredb');
}

function assertStrictlyIncreasing(events: readonly RecordedEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    const previous = events[i - 1];
    const current = events[i];
    if (!previous || !current || current.position <= previous.position) {
      throw new Error(`positions not strictly increasing at index ${i}: ${previous?.position} then ${current?.position}`);
    }
  }
}
