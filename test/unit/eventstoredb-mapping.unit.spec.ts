import { Readable } from 'node:stream';
import {
  ANY,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  UnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  UNKNOWN_POSITION,
  batchedSubscription,
  createEventStoreDbStore,
  fromVendorPosition,
  toRecordedEvent,
  toVendorExpectedRevision,
  toVendorPosition,
  translateAppendError,
  translateError,
} from '../../src/events/store/eventstoredb.js';
import { StreamRevisionConflictError, type RecordedEvent } from '../../src/events/store/port.js';

/** The gRPC error shape the client converts from (its constructors read `metadata.getMap()`). */
type ServiceError = ConstructorParameters<typeof NotLeaderError>[0];
const serviceError = (code: number, details: string, metadata: Record<string, string> = {}): ServiceError =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: { getMap: () => metadata } }) as unknown as ServiceError;

const EVENT_ID = '5b0c3a52-7a1e-4c8e-9d7e-2f0b6c1d9e01';
const CREATED = new Date('2025-03-04T05:06:07.000Z');

function resolved(
  overrides: { streamId?: string; type?: string; commit?: bigint; data?: unknown; isJson?: boolean; metadata?: unknown } = {},
): AllStreamResolvedEvent {
  const commit = overrides.commit ?? 1_000n;
  const event = {
    streamId: overrides.streamId ?? 'orders-1',
    id: EVENT_ID,
    isJson: overrides.isJson ?? true,
    revision: 3n,
    type: overrides.type ?? 'OrderPlaced',
    created: CREATED,
    data: overrides.data ?? { total: 12 },
    metadata: 'metadata' in overrides ? overrides.metadata : { correlationId: 'c-1' },
    position: { commit, prepare: commit },
  };
  return { event: event as AllStreamResolvedEvent['event'], commitPosition: commit };
}

describe('when mapping an expected revision to the client', () => {
  it('maps any, no_stream and stream_exists to the client constants', () => {
    expect(toVendorExpectedRevision('any')).toBe(ANY);
    expect(toVendorExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toVendorExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
  });

  it('passes an exact revision through', () => {
    expect(toVendorExpectedRevision(41n)).toBe(41n);
  });
});

describe('when mapping positions', () => {
  it('reads from a position with commit and prepare both set to it', () => {
    expect(toVendorPosition(4_096n)).toEqual({ commit: 4_096n, prepare: 4_096n });
  });

  it('takes the commit half of a vendor position', () => {
    expect(fromVendorPosition({ commit: 700n, prepare: 650n })).toBe(700n);
  });

  it('treats a missing position and the 2^64-1 "no position" marker as unknown', () => {
    expect(fromVendorPosition(undefined)).toBeUndefined();
    expect(fromVendorPosition({ commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n })).toBeUndefined();
  });
});

describe('when an append fails with a wrong expected version', () => {
  it('becomes a revision conflict carrying the actual revision', () => {
    const vendor = new WrongExpectedVersionError(undefined, { streamName: 'orders-1', expected: 0n, current: 1n });
    const error = translateAppendError(vendor, 'orders-1', 0n);
    expect(error).toBeInstanceOf(StreamRevisionConflictError);
    expect(error).toMatchObject({ code: 'CONCURRENT_MODIFICATION', streamId: 'orders-1', expected: 0n, actual: 1n });
    expect(error.message).toBe('stream orders-1 was modified concurrently (expected 0, found 1)');
  });

  it('reports no_stream when the stream does not exist', () => {
    const vendor = new WrongExpectedVersionError(undefined, { streamName: 'orders-2', expected: STREAM_EXISTS, current: NO_STREAM });
    expect(translateAppendError(vendor, 'orders-2', 'stream_exists')).toMatchObject({
      code: 'CONCURRENT_MODIFICATION',
      actual: 'no_stream',
    });
  });

  it('reads the versions from the gRPC metadata the way the client does', () => {
    const grpc = serviceError(9, 'Wrong expected version', {
      exception: 'wrong-expected-version',
      'stream-name': 'orders-3',
      'expected-version': '4',
    });
    const error = translateAppendError(convertToCommandError(grpc), 'orders-3', 4n);
    expect(error).toMatchObject({ code: 'CONCURRENT_MODIFICATION', expected: 4n, actual: 'no_stream' });
  });
});

describe('when an append hits a deleted stream', () => {
  it('becomes a CONFLICT naming the stream', () => {
    const error = translateAppendError(StreamDeletedError.fromStreamName('orders-4'), 'orders-4', 'any');
    expect(error).toMatchObject({
      code: 'CONFLICT',
      message: 'stream orders-4 was deleted and cannot be appended to',
      details: { streamId: 'orders-4' },
    });
  });
});

describe('when a client call fails for another reason', () => {
  it('turns an unavailable server into UNAVAILABLE and keeps the vendor error as the cause', () => {
    const vendor = new UnavailableError(undefined, 'No connection established');
    const error = translateAppendError(vendor, 'orders-5', 'any');
    expect(error).not.toBeInstanceOf(StreamRevisionConflictError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: 'EventStoreDB is unavailable: append failed (unavailable)' });
    expect(error.cause).toBe(vendor);
  });

  it('turns a node that is not the leader into UNAVAILABLE', () => {
    const vendor = new NotLeaderError(
      serviceError(5, 'Leader info available', { 'leader-endpoint-host': 'node2', 'leader-endpoint-port': '2113' }),
    );
    expect(translateError(vendor, 'read $all')).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: read $all failed (not-leader)',
    });
  });

  it('turns an exceeded deadline into UNAVAILABLE', () => {
    expect(translateError(new DeadlineExceededError(), 'read stream')).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: read stream failed (deadline-exceeded)',
    });
  });

  it('converts a raw gRPC error first, as the client would', () => {
    const raw = serviceError(14, 'No connection established');
    const error = translateError(raw, 'ping');
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: 'EventStoreDB is unavailable: ping failed (unavailable)' });
    expect(error.cause).toBe(raw);
  });

  it('turns an error that is not the client’s (e.g. failed discovery) into UNAVAILABLE', () => {
    const error = translateError(new Error('Failed to discover after 10 attempts.'), 'append');
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: 'EventStoreDB is unavailable: append failed (error)' });
  });

  it('turns a write over the maximum append size into INTERNAL', () => {
    const error = translateAppendError(MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576), 'orders-6', 'any');
    expect(error).toMatchObject({
      code: 'INTERNAL',
      message: 'EventStoreDB refused the write: it exceeds the 1048576-byte append limit',
    });
  });

  it('passes an AppError through unchanged', () => {
    const original = new AppError('UNAVAILABLE', 'already translated');
    expect(translateError(original, 'append')).toBe(original);
  });
});

describe('when mapping a resolved event', () => {
  it('keeps id, type, data, metadata, stream, revision, commit position and creation time', () => {
    expect(toRecordedEvent(resolved({ commit: 1_234n }))).toEqual({
      eventId: EVENT_ID,
      type: 'OrderPlaced',
      data: { total: 12 },
      metadata: { correlationId: 'c-1' },
      streamId: 'orders-1',
      streamRevision: 3n,
      position: 1_234n,
      recordedAt: CREATED,
    });
  });

  it('reads missing metadata as {}', () => {
    expect(toRecordedEvent(resolved({ metadata: undefined }))?.metadata).toEqual({});
  });

  it('takes the event’s own position on a stream read, which has no commit position of its own', () => {
    const { event } = resolved({ commit: 88n });
    const fromStream: ResolvedEvent = { event };
    expect(toRecordedEvent(fromStream)?.position).toBe(88n);
  });

  it('marks the position unknown when the server reported none', () => {
    const { event } = resolved();
    const withoutPosition = { event: { ...event, position: undefined } } as ResolvedEvent;
    expect(toRecordedEvent(withoutPosition)?.position).toBe(UNKNOWN_POSITION);
  });

  it('skips system streams, system types, binary events, data that is not a JSON object, and links without events', () => {
    expect(toRecordedEvent(resolved({ streamId: '$stats-0.0.0.0:2113' }))).toBeUndefined();
    expect(toRecordedEvent(resolved({ type: '$metadata' }))).toBeUndefined();
    expect(toRecordedEvent(resolved({ isJson: false, data: new Uint8Array([1]) }))).toBeUndefined();
    expect(toRecordedEvent(resolved({ data: '{not json' }))).toBeUndefined();
    expect(toRecordedEvent(resolved({ data: [1, 2] }))).toBeUndefined();
    expect(toRecordedEvent({ commitPosition: 5n })).toBeUndefined();
  });
});

/** A stand-in for the client's subscription: an object-mode Readable the test pushes into. */
function fakeVendor(): {
  stream: Readable;
  unsubscribed: () => boolean;
  opened: { from?: Position | typeof START; highWaterMark?: number };
} {
  let unsubscribed = false;
  const stream = Object.assign(new Readable({ objectMode: true, read: () => undefined }), {
    unsubscribe: () => {
      unsubscribed = true;
      return Promise.resolve();
    },
  });
  return { stream, unsubscribed: () => unsubscribed, opened: {} };
}

function subscribe(vendor: ReturnType<typeof fakeVendor>, options: Parameters<typeof batchedSubscription>[1]) {
  return batchedSubscription((from, highWaterMark) => {
    vendor.opened.from = from;
    vendor.opened.highWaterMark = highWaterMark;
    return vendor.stream as unknown as AllStreamSubscription;
  }, options);
}

const positions = (batch: readonly RecordedEvent[]): bigint[] => batch.map((e) => e.position);

describe('when subscribing to $all', () => {
  it('opens at the start, or at the given position, with a buffer of one batch', async () => {
    const fromStart = fakeVendor();
    await subscribe(fromStart, { batchSize: 25, onBatch: () => Promise.resolve() }).stop();
    expect(fromStart.opened).toEqual({ from: START, highWaterMark: 25 });
    const fromPosition = fakeVendor();
    await subscribe(fromPosition, { after: 640n, onBatch: () => Promise.resolve() }).stop();
    expect(fromPosition.opened).toEqual({ from: { commit: 640n, prepare: 640n }, highWaterMark: 500 });
  });

  it('delivers buffered events in batches of at most batchSize, awaiting each before the next', async () => {
    const vendor = fakeVendor();
    const batches: bigint[][] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstSeen!: () => void;
    const first = new Promise<void>((resolve) => (firstSeen = resolve));
    let secondSeen!: () => void;
    const second = new Promise<void>((resolve) => (secondSeen = resolve));
    const subscription = subscribe(vendor, {
      batchSize: 3,
      onBatch: async (batch) => {
        batches.push(positions(batch));
        if (batches.length === 1) {
          firstSeen();
          await firstHeld;
        } else secondSeen();
      },
    });
    for (const commit of [10n, 20n, 30n, 40n, 50n]) vendor.stream.push(resolved({ commit }));
    await first;
    // Give the subscription every chance to run ahead: nothing more may arrive while batch 1 is held.
    for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[10n, 20n, 30n]]);
    releaseFirst();
    await second;
    expect(batches).toEqual([
      [10n, 20n, 30n],
      [40n, 50n],
    ]);
    await subscription.stop();
    await expect(subscription.done).resolves.toBeUndefined();
    expect(vendor.unsubscribed()).toBe(true);
  });

  it('skips the event at the start position and system events', async () => {
    const vendor = fakeVendor();
    const delivered: bigint[] = [];
    let sawLast!: () => void;
    const last = new Promise<void>((resolve) => (sawLast = resolve));
    const subscription = subscribe(vendor, {
      after: 10n,
      onBatch: (batch) => {
        delivered.push(...positions(batch));
        if (delivered.includes(20n)) sawLast();
        return Promise.resolve();
      },
    });
    for (const event of [resolved({ commit: 10n }), resolved({ commit: 15n, streamId: '$stats-1' }), resolved({ commit: 20n })])
      vendor.stream.push(event);
    await last;
    await subscription.stop();
    expect(delivered).toEqual([20n]);
  });

  it('resolves stop() only once the running onBatch has finished', async () => {
    const vendor = fakeVendor();
    let finished = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const subscription = subscribe(vendor, {
      onBatch: async () => {
        started();
        await held;
        finished = true;
      },
    });
    vendor.stream.push(resolved());
    await running;
    let stopped = false;
    const stopping = subscription.stop().then(() => (stopped = true));
    for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
  });

  it('ends with the handler’s own error when onBatch throws', async () => {
    const vendor = fakeVendor();
    const broke = new Error('handler broke');
    const subscription = subscribe(vendor, { onBatch: () => Promise.reject(broke) });
    vendor.stream.push(resolved());
    await expect(subscription.done).rejects.toBe(broke);
    expect(vendor.unsubscribed()).toBe(true);
  });

  it('ends with UNAVAILABLE when the server drops the subscription', async () => {
    const vendor = fakeVendor();
    const subscription = subscribe(vendor, { onBatch: () => Promise.resolve() });
    vendor.stream.destroy(new UnavailableError(undefined, 'connection reset'));
    await expect(subscription.done).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: subscription to $all failed (unavailable)',
    });
  });

  it('ends with UNAVAILABLE when the subscription stream ends on its own', async () => {
    const vendor = fakeVendor();
    const subscription = subscribe(vendor, { onBatch: () => Promise.resolve() });
    vendor.stream.push(null);
    await expect(subscription.done).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: the subscription to $all ended',
    });
  });
});

describe('when the server cannot be reached', () => {
  // Port 1 on loopback refuses connections, so every call fails fast without a server.
  const store = createEventStoreDbStore({ connectionString: 'esdb://127.0.0.1:1?tls=false' });
  afterAll(() => store.close());

  it('refuses an append condition it cannot check, before it writes anything', async () => {
    const event = { eventId: EVENT_ID, type: 'OrderPlaced', data: {}, metadata: {} };
    expect(store.checksConditions).toBe(false);
    await expect(
      store.appendMany([{ streamId: 'orders-1', expectedRevision: 'any', events: [event] }], { sql: () => 'true', parameters: [] }),
    ).rejects.toThrow('EventStoreDB cannot check an append condition');
  });

  it('answers ping with UNAVAILABLE', async () => {
    await expect(store.ping()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: ping failed (unavailable)',
    });
  });

  it('answers appends and reads with UNAVAILABLE, never a vendor error', async () => {
    const event = { eventId: EVENT_ID, type: 'OrderPlaced', data: {}, metadata: {} };
    await expect(store.append('orders-1', [event], { expectedRevision: 'any' })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: append failed (unavailable)',
    });
    await expect(store.readStream('orders-1')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: read stream failed (unavailable)',
    });
    await expect(store.readAll({ limit: 10 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: read $all failed (unavailable)',
    });
    await expect(store.headPosition()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('ends a subscription with UNAVAILABLE', async () => {
    const subscription = store.subscribe({ onBatch: () => Promise.resolve() });
    await expect(subscription.done).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: 'EventStoreDB is unavailable: subscription to $all failed (unavailable)',
    });
  });
});
