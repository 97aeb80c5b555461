import { isTransientDatabaseError } from '../storage/errors.js';
import type { SqlClient } from '../storage/pool.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import type { RecordedEvent } from '../events/store/port.js';
import { writingAtOnce, type Projection } from './projection.js';

/** Advisory lock key of a projection: stable across processes, distinct per name. */
export function projectionLockKey(name: string): number {
  let hash = 7_146_100;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** A projector error on one event: the projection stops visibly, the server keeps going. */
export class PoisonEvent extends Error {
  constructor(
    readonly event: RecordedEvent,
    readonly reason: unknown,
    /** Position of the event just before it in the batch: everything up to there is applied. */
    readonly before: bigint | undefined,
  ) {
    super(
      `projection failed on event ${event.eventId} (${event.type}) at position ${event.position}: ` +
        String(reason instanceof Error ? reason.message : reason),
    );
  }
}

/**
 * Decodes and applies the events the projection handles. When the batch fails, it is applied again
 * one event at a time (each under a savepoint) to find and name the poison event.
 */
export async function applyEvents(
  tx: SqlClient,
  projection: Projection,
  codec: EventCodec,
  events: readonly RecordedEvent[],
): Promise<void> {
  const relevant = events.filter((e) => projection.handles.has(e.type));
  if (relevant.length === 0) return;
  await tx.query('SAVEPOINT batch');
  try {
    await projection.applyBatch(
      writingAtOnce(tx),
      relevant.map((e) => codec.decode(e)),
    );
    await tx.query('RELEASE SAVEPOINT batch');
    return;
  } catch (error) {
    if (isTransientDatabaseError(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT batch');
  }
  for (const event of relevant) {
    const before = events[events.indexOf(event) - 1]?.position;
    let decoded: DecodedEvent;
    try {
      decoded = codec.decode(event);
    } catch (reason) {
      throw new PoisonEvent(event, reason, before);
    }
    await tx.query('SAVEPOINT one');
    try {
      await projection.applyBatch(writingAtOnce(tx), [decoded]);
      await tx.query('RELEASE SAVEPOINT one');
    } catch (reason) {
      if (isTransientDatabaseError(reason)) throw reason;
      await tx.query('ROLLBACK TO SAVEPOINT one');
      throw new PoisonEvent(event, reason, before);
    }
  }
}
