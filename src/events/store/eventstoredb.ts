import { setTimeout as sleep } from 'node:timers/promises';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  convertToCommandError,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Direction,
  type Position,
  type ResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import {
  StreamRevisionConflictError,
  type AppendCondition,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamWrite,
  type SubscribeOptions,
  type Subscription,
} from './port.js';

/**
 * Positions in this adapter are EventStoreDB commit positions: byte offsets in the transaction log,
 * strictly increasing per event in `$all` (for every event not written in a legacy explicit transaction).
 * Stream reads carry them only from EventStoreDB 22.6 on; where the server does not report one, the
 * event carries {@link UNKNOWN_POSITION}.
 */
export const UNKNOWN_POSITION = -1n;

/** The server and client spell "no position" as the largest unsigned 64-bit integer. */
const NO_POSITION_MARKER = 2n ** 64n - 1n;
const PING_TIMEOUT_MS = 5_000;
const HEAD_PAGE = 64;

/** Maps the port's expected revision onto the client's (the same words, spelled by the client's constants). */
export function toVendorExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (typeof expected === 'bigint') return expected;
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return STREAM_EXISTS;
}

/**
 * The `$all` position to read from for one of our positions. Both halves are the commit position,
 * which is where EventStoreDB 20+ puts every event written outside an explicit transaction.
 */
export function toVendorPosition(position: bigint): Position {
  return { commit: position, prepare: position };
}

/** Our position for a vendor one: its commit half, or undefined when the server gave none. */
export function fromVendorPosition(position: Position | undefined): bigint | undefined {
  if (position === undefined || position.commit < 0n || position.commit === NO_POSITION_MARKER) return undefined;
  return position.commit;
}

/**
 * Turns whatever a client call threw into an AppError: vendor errors (unavailable, not leader,
 * deadline, discovery failures, …) become UNAVAILABLE; an AppError passes through unchanged.
 * The vendor error stays reachable as `cause` for the logs, never as the error itself.
 */
export function translateError(error: unknown, action: string): AppError {
  if (error instanceof AppError) return error;
  // Raw gRPC errors (e.g. from a failed write on the call) are converted the way the client does it.
  const vendor = error instanceof Error ? convertToCommandError(error) : error;
  if (vendor instanceof MaxAppendSizeExceededError) {
    return new AppError('INTERNAL', `EventStoreDB refused the write: it exceeds the ${vendor.maxAppendSize}-byte append limit`, {
      cause: error,
    });
  }
  const reason = vendor instanceof Error && isCommandError(vendor) ? vendor.type : 'error';
  return new AppError('UNAVAILABLE', `EventStoreDB is unavailable: ${action} failed (${reason})`, { cause: error });
}

/** As {@link translateError}, plus the append-specific outcomes: a revision conflict and a deleted stream. */
export function translateAppendError(error: unknown, streamId: string, expected: ExpectedRevision): AppError {
  if (error instanceof WrongExpectedVersionError) {
    const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : 'no_stream';
    return new StreamRevisionConflictError(streamId, expected, actual);
  }
  if (error instanceof StreamDeletedError) {
    return new AppError('CONFLICT', `stream ${streamId} was deleted and cannot be appended to`, { details: { streamId }, cause: error });
  }
  return translateError(error, 'append');
}

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

/**
 * A resolved event as the port's RecordedEvent, or undefined for what the port never shows: system
 * streams and types (`$…`), non-JSON events and JSON events whose data is not an object.
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || event.streamId.startsWith('$') || event.type.startsWith('$') || !event.isJson || !isJsonObject(event.data))
    return undefined;
  return {
    eventId: event.id,
    type: event.type,
    data: event.data,
    metadata: isJsonObject(event.metadata) ? event.metadata : {},
    streamId: event.streamId,
    streamRevision: event.revision,
    position: resolved.commitPosition ?? fromVendorPosition(event.position) ?? UNKNOWN_POSITION,
    recordedAt: event.created,
  };
}

/**
 * The event store on EventStoreDB (20+; 22.6+ for positions on stream reads).
 *
 * `appendMany` is not atomic: EventStoreDB has no multi-stream transaction, so the streams are
 * written one after the other, in the order given. When a later write fails, the earlier ones stay
 * written (and are logged); `atomicMultiStream` is false so callers know to compensate.
 *
 * @param options.connectionString - an `esdb://` or `esdb+discover://` connection string.
 */
export function createEventStoreDbStore(options: { readonly connectionString: string; readonly log?: Logger }): EventStore {
  const { log } = options;
  const client = EventStoreDBClient.connectionString(options.connectionString);
  const subscriptions = new Set<{ stop(): Promise<void> }>();

  async function collect<E>(read: StreamingRead<E>, action: string): Promise<E[]> {
    const items: E[] = [];
    try {
      for await (const item of read) items.push(item);
    } catch (error) {
      throw translateError(error, action);
    }
    return items;
  }

  async function appendOne(write: StreamWrite): Promise<{ position: bigint; revision: bigint }> {
    const events = write.events.map((e) => jsonEvent({ id: e.eventId, type: e.type, data: e.data, metadata: e.metadata }));
    try {
      // A retry with the same event ids at the same expected revision is answered by the server as the
      // original write (idempotent append), with the original position (older servers may send none).
      const result = await client.appendToStream(write.streamId, events, {
        expectedRevision: toVendorExpectedRevision(write.expectedRevision),
      });
      return { position: fromVendorPosition(result.position) ?? UNKNOWN_POSITION, revision: result.nextExpectedRevision };
    } catch (error) {
      throw translateAppendError(error, write.streamId, write.expectedRevision);
    }
  }

  async function appendMany(writes: readonly StreamWrite[], condition?: AppendCondition): Promise<AppendResult> {
    // Never appended unchecked: a writer asking for a condition is told the store cannot check it.
    if (condition) throw new TypeError('EventStoreDB cannot check an append condition (checksConditions is false)');
    if (writes.every((w) => w.events.length === 0)) throw new TypeError('appendMany needs at least one event');
    if (new Set(writes.map((w) => w.streamId)).size !== writes.length) throw new TypeError('appendMany takes each stream once');
    const revisions = new Map<string, bigint>();
    let position = UNKNOWN_POSITION;
    for (const write of writes) {
      try {
        const written = await appendOne(write);
        revisions.set(write.streamId, written.revision);
        if (written.position > position) position = written.position;
      } catch (error) {
        if (revisions.size > 0) {
          log?.warn({ written: [...revisions.keys()], failed: write.streamId }, 'appendMany failed part-way; earlier writes stay');
        }
        throw error;
      }
    }
    return { position, revisions };
  }

  /**
   * Walks `$all` page by page from `start` (exclusive), handing each non-system event to `visit`
   * until it answers false or the log ends. The client's readAll takes no server-side filter, so
   * system events are dropped here, and paging goes on past pages that held nothing but them.
   */
  async function scanAll(
    direction: Direction,
    start: bigint | undefined,
    size: number,
    visit: (e: RecordedEvent) => boolean,
  ): Promise<void> {
    const forwards = direction === FORWARDS;
    let cursor = start;
    let from: Position | typeof START | typeof END = start === undefined ? (forwards ? START : END) : toVendorPosition(start);
    for (;;) {
      const page = await collect(client.readAll({ direction, fromPosition: from, maxCount: size }), 'read $all');
      let advanced = false;
      for (const resolved of page) {
        const position = resolved.commitPosition ?? fromVendorPosition(resolved.event?.position);
        // The read may include the event at its start position; that one was seen (or excluded) already.
        if (position === undefined || (cursor !== undefined && (forwards ? position <= cursor : position >= cursor))) continue;
        cursor = position;
        advanced = true;
        if (resolved.event) from = resolved.event.position;
        const event = toRecordedEvent(resolved);
        if (event && !visit(event)) return;
      }
      if (page.length < size || !advanced) return;
    }
  }

  async function readStream(streamId: string): Promise<RecordedEvent[]> {
    try {
      const events: RecordedEvent[] = [];
      for await (const resolved of client.readStream(streamId)) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
      return events;
    } catch (error) {
      // A stream that never existed, was soft-deleted or was tombstoned reads as empty.
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw translateError(error, 'read stream');
    }
  }

  return {
    kind: 'eventstoredb',
    atomicMultiStream: false,
    checksConditions: false,
    append: (streamId, events, { expectedRevision }) => appendMany([{ streamId, expectedRevision, events }]),
    appendMany,
    readStream,
    async readStreams(streamIds) {
      const unique = [...new Set(streamIds)];
      const read = await Promise.all(unique.map(async (id) => [id, await readStream(id)] as const));
      return new Map(read);
    },
    async readAll({ after, limit, types }) {
      const events: RecordedEvent[] = [];
      if (limit <= 0) return events;
      // The types are filtered here, as system events are: the scan goes on past pages of other events.
      const wanted = types === undefined ? undefined : new Set(types);
      // One more than asked for, so a page that starts with the (skipped) event at `after` still fills the limit.
      await scanAll(FORWARDS, after, limit + 1, (event) => (wanted && !wanted.has(event.type)) || events.push(event) < limit);
      return events;
    },
    async readAllEach(options, onEvent) {
      const events = await this.readAll(options);
      for (const event of events) onEvent(event);
      return events.length;
    },
    async truncate(streamId, beforeRevision) {
      try {
        let before = beforeRevision;
        if (before === undefined) {
          // Everything: truncate before the revision after the last one.
          const last = (await this.readStream(streamId)).at(-1);
          if (!last) return;
          before = last.streamRevision + 1n;
        }
        await client.setStreamMetadata(streamId, { truncateBefore: Number(before) });
      } catch (error) {
        if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return;
        throw translateError(error, 'truncate stream');
      }
    },
    async headPosition() {
      let head: bigint | undefined;
      await scanAll(BACKWARDS, undefined, HEAD_PAGE, (event) => {
        head = event.position;
        return false;
      });
      return head;
    },
    // $all has no events that may still commit: the newest committed event is the head.
    lastPosition() {
      return this.headPosition();
    },
    async countAfter(after, limit, types) {
      let count = 0;
      const wanted = types === undefined ? undefined : new Set(types);
      if (limit > 0)
        await scanAll(FORWARDS, after, Math.min(limit, HEAD_PAGE * 10), (event) => (wanted && !wanted.has(event.type)) || ++count < limit);
      return count;
    },
    subscribe(subscribeOptions) {
      const subscription = batchedSubscription(
        (fromPosition, highWaterMark) => client.subscribeToAll({ fromPosition, filter: excludeSystemEvents() }, { highWaterMark }),
        subscribeOptions,
      );
      subscriptions.add(subscription);
      void subscription.done.catch(() => undefined).finally(() => subscriptions.delete(subscription));
      return subscription;
    },
    async ping() {
      // Reads wait without a deadline, so a server that accepts the connection but never answers needs a bound here.
      const timedOut = sleep(PING_TIMEOUT_MS, undefined, { ref: false }).then(() => {
        throw new AppError('UNAVAILABLE', `EventStoreDB is unavailable: ping timed out after ${PING_TIMEOUT_MS} ms`);
      });
      await Promise.race([collect(client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }), 'ping'), timedOut]);
    },
    async close() {
      // Stop subscriptions first: disposing the client under them would leave their loops waiting.
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await client.dispose();
    },
  };
}

/**
 * Catch-up then live delivery over one server-side filtered `$all` subscription, opened by `open`
 * from `after` (exclusive) or the start. The vendor stream is consumed as an async iterator: each
 * batch is the next event plus whatever is already buffered (up to `batchSize`), and nothing more is
 * pulled until `onBatch` settles, so gRPC flow control holds the server back while a handler is slow.
 */
export function batchedSubscription(
  open: (from: Position | typeof START, highWaterMark: number) => AllStreamSubscription,
  options: SubscribeOptions,
): Subscription {
  const batchSize = options.batchSize ?? 500;
  let after = options.after;
  let stopped = false;
  // Read through a function: stop() flips the flag while the loop is suspended, which narrowing cannot see.
  const isStopped = (): boolean => stopped;
  const vendor = open(after === undefined ? START : toVendorPosition(after), batchSize);
  // Errors after stop() would otherwise be an unhandled 'error' event; the loop sees live ones through the iterator.
  vendor.on('error', () => undefined);
  const iterator = vendor[Symbol.asyncIterator]() as AsyncIterator<AllStreamResolvedEvent>;

  const take = (resolved: AllStreamResolvedEvent, batch: RecordedEvent[]): void => {
    const event = toRecordedEvent(resolved);
    // A subscription from a position may start with the event at it; that one was delivered already.
    if (event && (after === undefined || event.position > after)) batch.push(event);
  };

  const loop = async (): Promise<void> => {
    try {
      while (!stopped) {
        let next: IteratorResult<AllStreamResolvedEvent>;
        try {
          next = await iterator.next();
        } catch (error) {
          if (isStopped()) return;
          throw translateError(error, 'subscription to $all');
        }
        if (isStopped()) return;
        if (next.done === true) throw new AppError('UNAVAILABLE', 'EventStoreDB is unavailable: the subscription to $all ended');
        const batch: RecordedEvent[] = [];
        take(next.value, batch);
        while (batch.length < batchSize) {
          const buffered = vendor.read() as AllStreamResolvedEvent | null;
          if (buffered === null) break;
          take(buffered, batch);
        }
        if (batch.length === 0) continue;
        await options.onBatch(batch);
        after = batch[batch.length - 1]?.position;
      }
    } finally {
      void vendor.unsubscribe().catch(() => undefined);
      vendor.destroy();
    }
  };

  const done = loop();
  // Whoever cares awaits `done`; nobody awaiting it must not turn into an unhandled rejection.
  done.catch(() => undefined);
  return {
    done,
    async stop() {
      stopped = true;
      // Ends a pending iterator.next(); a running onBatch is awaited through `done`.
      vendor.destroy();
      await done.catch(() => undefined);
    },
  };
}
