import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { UnconfirmedBatch, type ReadAllOptions, type RecordedEvent, type SubscribeOptions } from '../../src/events/store/port.js';
import { ELSEWHERE, pollingSubscription, type ReadPage } from '../../src/events/store/subscription.js';

const event = (position: number): RecordedEvent => ({
  eventId: `e${position}`,
  streamId: 's',
  streamRevision: BigInt(position),
  position: BigInt(position),
  type: 'T',
  data: {},
  metadata: {},
  recordedAt: new Date(0),
});

/** An in-memory log of `size` events read in pages, recording each read and what was handed over meanwhile. */
function log(size: number) {
  const reads: { after: bigint | undefined; deliveredBefore: number }[] = [];
  let delivered = 0;
  const readPage = (options: ReadAllOptions): Promise<ReadPage> => {
    reads.push({ after: options.after, deliveredBefore: delivered });
    const from = options.after === undefined ? 0 : Number(options.after) + 1;
    const events = Array.from({ length: Math.max(0, Math.min(options.limit, size - from)) }, (_, i) => event(from + i));
    return Promise.resolve({ events, held: false });
  };
  return { reads, readPage, delivered: () => delivered, deliver: (n: number) => (delivered += n) };
}

describe('a polling subscription catching up', () => {
  it('reads the page after a full one while that one is handed over, and delivers every event once, in order', async () => {
    const source = log(10);
    const seen: bigint[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let caughtUp!: () => void;
    const done = new Promise<void>((resolve) => (caughtUp = resolve));
    const wakeUps = new EventEmitter();
    const subscription = pollingSubscription({
      readPage: source.readPage,
      wakeUps,
      pollIntervalMs: 60_000,
      batchSize: 4,
      onBatch: async (events) => {
        if (seen.length === 0) await firstHeld;
        seen.push(...events.map((e) => e.position));
        source.deliver(events.length);
        if (seen.length === 10) caughtUp();
      },
    });
    // The first batch (full) is held by its consumer: the second page is read all the same.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.reads.map((r) => r.after)).toEqual([undefined, 3n]);
    expect(source.delivered()).toBe(0);
    releaseFirst();
    await done;
    // The last page (2 events) was not full: it was everything there was, so no read follows it
    // until news of an append arrives, and that read comes after its delivery.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.reads).toHaveLength(3);
    wakeUps.emit('append');
    while (source.reads.length < 4) await new Promise((resolve) => setTimeout(resolve, 1));
    await subscription.stop();
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i)));
    expect(source.reads.map((r) => r.after)).toEqual([undefined, 3n, 7n, 9n]);
    expect(source.reads.at(-1)?.deliveredBefore).toBe(10);
  });

  it("ends with the consumer's error, the page read meanwhile left unused", async () => {
    const source = log(8);
    const subscription = pollingSubscription({
      readPage: source.readPage,
      wakeUps: new EventEmitter(),
      pollIntervalMs: 60_000,
      batchSize: 4,
      onBatch: () => Promise.reject(new Error('projection failed')),
    });
    await expect(subscription.done).rejects.toThrow('projection failed');
    expect(source.reads.map((r) => r.after)).toEqual([undefined, 3n]);
  });
});

describe('a polling subscription offering its next read to the consumer', () => {
  /**
   * A growing log: `append(n)` adds events. Its read ahead's statement names the page (after, limit)
   * and the rows a consumer hands back are that statement, read as the consumer committed.
   */
  function growing() {
    let size = 0;
    const reads: (bigint | undefined)[] = [];
    const page = (after: bigint | undefined, limit: number): ReadPage => {
      const from = after === undefined ? 0 : Number(after) + 1;
      return { events: Array.from({ length: Math.max(0, Math.min(limit, size - from)) }, (_, i) => event(from + i)), held: false };
    };
    return {
      reads,
      append: (n: number) => (size += n),
      /** A live subscription of this log (no wake-up but `wakeUps`: the poll interval is a minute). */
      subscribe: (onBatch: SubscribeOptions['onBatch'], wakeUps = new EventEmitter()) =>
        pollingSubscription({
          readPage: (options) => {
            reads.push(options.after);
            return Promise.resolve(page(options.after, options.limit));
          },
          wakeUps,
          pollIntervalMs: 60_000,
          batchSize: 10,
          readAhead: {
            statement: (after, limit) => `${String(after)},${limit}`,
            page: (rows) => {
              const [after, limit] = String(rows[0]).split(',');
              return page(BigInt(after ?? '0'), Number(limit));
            },
          },
          onBatch,
        }),
    };
  }

  it('delivers the page the consumer read after its batch without reading it again', async () => {
    const source = growing();
    source.append(2);
    const seen: bigint[] = [];
    const subscription = source.subscribe((events, readAhead) => {
      seen.push(...events.map((e) => e.position));
      // As the projection hub does: more events committed while the batch was applied, and the
      // statement sent after its COMMIT answers them.
      if (seen.length < 6) source.append(2);
      const statement = readAhead?.statement();
      if (statement !== undefined) readAhead?.accept([statement]);
      return Promise.resolve();
    });
    while (seen.length < 6) await new Promise((resolve) => setTimeout(resolve, 1));
    await subscription.stop();
    expect(seen).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
    // One read to start with; every later page came with the consumer's batch.
    expect(source.reads).toEqual([undefined]);
  });

  it('reads at once when the consumer asked for the statement but never answered (its batch took another way)', async () => {
    const source = growing();
    source.append(2);
    const seen: bigint[] = [];
    const subscription = source.subscribe((events, readAhead) => {
      seen.push(...events.map((e) => e.position));
      if (seen.length < 4) source.append(2);
      readAhead?.statement();
      return Promise.resolve();
    });
    // No wake-up ever comes (the poll interval is a minute): the reads follow from the unanswered statements.
    while (seen.length < 4) await new Promise((resolve) => setTimeout(resolve, 1));
    await subscription.stop();
    expect(seen).toEqual([0n, 1n, 2n, 3n]);
    // After each batch, a read of its own at once: the second found the events appended meanwhile.
    expect(source.reads).toEqual([undefined, 1n, 3n]);
  });

  it('waits for news as before when the consumer leaves the offer alone', async () => {
    const source = growing();
    source.append(2);
    let batches = 0;
    const wakeUps = new EventEmitter();
    const subscription = source.subscribe(() => {
      batches++;
      return Promise.resolve();
    }, wakeUps);
    while (batches < 1) await new Promise((resolve) => setTimeout(resolve, 1));
    source.append(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.reads).toEqual([undefined]);
    wakeUps.emit('append');
    while (batches < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    await subscription.stop();
    expect(source.reads).toEqual([undefined, 1n]);
  });
});

describe("a polling subscription offering this process's own appends (ownAppends)", () => {
  /**
   * A log whose appends this process makes (`appendHere`: 'committed' with the events, then 'append')
   * or another process makes (`appendElsewhere`: only 'append' with ELSEWHERE), read in pages of 10.
   * A confirmation names the range and count; `confirms` decides whether the consumer's check passes.
   */
  function ownLog() {
    const events: RecordedEvent[] = [];
    const reads: (bigint | undefined)[] = [];
    const wakeUps = new EventEmitter();
    const page = (after: bigint | undefined, limit: number): ReadPage => ({
      events: events.filter((e) => after === undefined || e.position > after).slice(0, limit),
      held: false,
    });
    const add = (n: number): RecordedEvent[] => Array.from({ length: n }, () => event(events.push(event(events.length)) - 1));
    return {
      reads,
      appendHere(n: number) {
        wakeUps.emit('committed', add(n));
        wakeUps.emit('append');
      },
      appendElsewhere(n: number) {
        add(n);
        wakeUps.emit('append', ELSEWHERE);
      },
      /** Another process's append whose wake-up has not arrived yet. */
      appendUnannounced: (n: number) => void add(n),
      subscribe: (onBatch: SubscribeOptions['onBatch']) =>
        pollingSubscription({
          readPage: (options) => {
            reads.push(options.after);
            return Promise.resolve(page(options.after, options.limit));
          },
          wakeUps,
          pollIntervalMs: 60_000,
          batchSize: 10,
          confirmStatement: (after, last, count) => `${String(after)},${String(last)},${count}`,
          // As the PostgreSQL store offers it: the next page's read, to send with the batch's statements.
          readAhead: {
            statement: (after, limit) => `${String(after)},${limit}`,
            page: (rows) => {
              const [after, limit] = String(rows[0]).split(',');
              return page(after === 'undefined' ? undefined : BigInt(after ?? '0'), Number(limit));
            },
          },
          ownAppends: true,
          onBatch,
        }),
      /** Whether a confirmation statement holds for this log: exactly `count` events in (after, last]. */
      holds(statement: string): boolean {
        const [after, last, count] = statement.split(',');
        const inRange = events.filter(
          (e) => (after === 'undefined' || e.position > BigInt(after ?? '0')) && e.position <= BigInt(last ?? '0'),
        );
        return inRange.length === Number(count);
      },
    };
  }

  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
  };

  /**
   * Subscribes to `source`, keeping each batch's positions and its check's statement, if it came with
   * one. The consumer refuses the checks `refuses` names, as the projection hub does when a check
   * fails in its transaction: nothing of the batch kept.
   */
  function collect(source: ReturnType<typeof ownLog>, refuses: (statement: string) => boolean = () => false) {
    const batches: { positions: bigint[]; check?: string }[] = [];
    /** Per batch delivered: whether it came with the next page's read offered (PageReadAhead). */
    const offered: boolean[] = [];
    const subscription = source.subscribe((events, readAhead, check) => {
      const statement = check?.statement();
      if (statement !== undefined && refuses(statement)) return Promise.reject(new UnconfirmedBatch());
      batches.push({ positions: events.map((e) => e.position), ...(statement !== undefined && { check: statement }) });
      offered.push(readAhead !== undefined);
      return Promise.resolve();
    });
    return { batches, offered, subscription };
  }

  /**
   * Once the subscription's first read found the log caught up, runs each step (appends) and waits for
   * the batch it brings, then stops the subscription.
   */
  async function batchesOf(source: ReturnType<typeof ownLog>, collected: ReturnType<typeof collect>, steps: (() => void)[]) {
    await until(() => source.reads.length === 1);
    for (const [i, step] of steps.entries()) {
      step();
      await until(() => collected.batches.length === i + 1);
    }
    await collected.subscription.stop();
    return collected.batches;
  }

  it('delivers them with their check at once, without reading their page, once a read found the log caught up', async () => {
    const source = ownLog();
    const batches = await batchesOf(source, collect(source), [() => source.appendHere(2), () => source.appendHere(3)]);
    expect(batches).toEqual([
      { positions: [0n, 1n], check: 'undefined,1,2' },
      { positions: [2n, 3n, 4n], check: '1,4,3' },
    ]);
    // Only the first read, which found the log empty: every later batch came from the appends.
    expect(source.reads).toEqual([undefined]);
  });

  it('offers no read ahead with a batch of its own appends (they are held already), only with a page read back', async () => {
    const source = ownLog();
    const collected = collect(source, (statement) => !source.holds(statement));
    const batches = await batchesOf(source, collected, [
      () => source.appendHere(1),
      () => {
        source.appendUnannounced(1);
        source.appendHere(1);
      },
      () => source.appendHere(1),
    ]);
    expect(batches).toEqual([{ positions: [0n], check: 'undefined,0,1' }, { positions: [1n, 2n] }, { positions: [3n], check: '2,3,1' }]);
    expect(collected.offered).toEqual([false, true, false]);
  });

  it('reads the page back and delivers it instead when the consumer does not confirm a batch', async () => {
    const source = ownLog();
    const batches = await batchesOf(
      source,
      collect(source, (statement) => !source.holds(statement)),
      [
        // Another process's event lands first, its wake-up not here yet: the own batch alone is not the page.
        () => {
          source.appendUnannounced(1);
          source.appendHere(2);
        },
        // The page read back was everything: the next own append comes at once again.
        () => source.appendHere(1),
      ],
    );
    expect(batches).toEqual([{ positions: [0n, 1n, 2n] }, { positions: [3n], check: '2,3,1' }]);
    expect(source.reads).toEqual([undefined, undefined]);
  });

  it("reads the page after another process's wake-up rather than offer its own appends alone", async () => {
    const source = ownLog();
    const batches = await batchesOf(source, collect(source), [
      () => {
        source.appendElsewhere(1);
        source.appendHere(1);
      },
      () => source.appendHere(1),
    ]);
    expect(batches).toEqual([{ positions: [0n, 1n] }, { positions: [2n], check: '1,2,1' }]);
  });

  it('stops the subscription with any other error of the consumer, as for any batch', async () => {
    const source = ownLog();
    const subscription = source.subscribe((_events, _readAhead, check) =>
      check ? Promise.reject(new Error('the database went away')) : Promise.resolve(),
    );
    await until(() => source.reads.length === 1);
    source.appendHere(1);
    await expect(subscription.done).rejects.toThrow('the database went away');
  });
});
