import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EventCodec } from '../src/events/codec.js';
import type { EventStore, ExpectedRevision, NewEvent } from '../src/events/store/port.js';
import { encode, templateCreated, templateEdit, templateStream } from './fixtures.js';
import { percentile, perSecond } from './stats.js';

/** What one append run measured. */
export interface AppendResult {
  readonly writers: number;
  readonly appendsPerWriter: number;
  readonly events: number;
  readonly ms: number;
  readonly eventsPerSecond: number;
  /** Per-append latency percentiles, milliseconds. */
  readonly p50: number;
  readonly p99: number;
}

/**
 * Appends one event to a stream at an exact expected revision (`no_stream` for a new stream) and
 * answers the stream's revision after it: what every side of the append bench offers.
 */
export type Appender = (streamId: string, event: NewEvent, expected: ExpectedRevision) => Promise<bigint>;

/** The service's own event store as an appender. */
export const storeAppender =
  (store: EventStore): Appender =>
  async (streamId, event, expectedRevision) => {
    const result = await store.append(streamId, [event], { expectedRevision });
    const revision = result.revisions.get(streamId);
    if (revision === undefined) throw new Error(`append to ${streamId} returned no revision`);
    return revision;
  };

/** One writer's pre-encoded command traffic: a TemplateCreated, then edits, on its own stream. */
function writerEvents(codec: EventCodec, appends: number, seed: number): { streamId: string; events: NewEvent[] } {
  const id = randomUUID();
  const now = new Date();
  const events = Array.from({ length: appends }, (_, n) =>
    encode(codec, n === 0 ? templateCreated(id, seed) : templateEdit(n), seed + n, now),
  );
  return { streamId: templateStream(id), events };
}

/**
 * `writers` concurrent writers, each appending `appendsPerWriter` single-event appends to its own
 * stream with the exact expected revision (`no_stream`, then 0n, 1n, …). Events are encoded before the
 * clock starts, so only the append is timed.
 */
export async function benchAppends(append: Appender, codec: EventCodec, writers: number, appendsPerWriter: number): Promise<AppendResult> {
  const plans = Array.from({ length: writers }, (_, w) => writerEvents(codec, appendsPerWriter, w * appendsPerWriter));
  const latencies: number[] = [];
  const writer = async ({ streamId, events }: { streamId: string; events: NewEvent[] }): Promise<void> => {
    let expected: ExpectedRevision = 'no_stream';
    for (const event of events) {
      const started = performance.now();
      expected = await append(streamId, event, expected);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(plans.map(writer));
  const ms = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const events = writers * appendsPerWriter;
  return {
    writers,
    appendsPerWriter,
    events,
    ms,
    eventsPerSecond: perSecond(events, ms),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
