import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { EventCodec } from '../events/codec.js';
import type { EventStore, NewEvent, StreamWrite } from '../events/store/port.js';
import type { UniqueValueEvent } from '../events/unique.js';
import type { UniqueKey } from './decider.js';

/** Stream of one unique value; long values are hashed so stream ids stay short. */
export function uniqueStreamId(key: string): string {
  return key.length <= 120 ? `unique-${key}` : `unique-sha256-${createHash('sha256').update(key).digest('hex')}`;
}

interface Holder {
  readonly owner: string | undefined;
  readonly revision: bigint | undefined;
}

async function currentHolder(store: EventStore, codec: EventCodec, key: string): Promise<Holder> {
  const events = await store.readStream(uniqueStreamId(key));
  let owner: string | undefined;
  for (const recorded of events) {
    const { event } = codec.decode<UniqueValueEvent>(recorded);
    owner = event.type === 'UniqueValueReserved' ? event.data.ownerStreamId : undefined;
  }
  return { owner, revision: events.at(-1)?.streamRevision };
}

/** The reservation writes a command needs. */
export interface ReservationPlan {
  readonly reserve: readonly PlannedWrite[];
  readonly release: readonly PlannedWrite[];
}

/** A write with the event that undoes it (for stores without multi-stream transactions). */
export interface PlannedWrite extends StreamWrite {
  /** The event that undoes this write, for stores that cannot append atomically. */
  readonly undo: NewEvent;
}

/**
 * Works out the reservation writes that move `ownerStreamId` from holding `before` to holding
 * `after`. A value held by someone else is a 409 naming the field.
 */
export async function planReservations(
  store: EventStore,
  codec: EventCodec,
  ownerStreamId: string,
  before: readonly UniqueKey[],
  after: readonly UniqueKey[],
  encode: (event: UniqueValueEvent) => NewEvent,
): Promise<ReservationPlan> {
  const held = new Set(before.map((k) => k.key));
  const wanted = new Set(after.map((k) => k.key));
  const reserve: PlannedWrite[] = [];
  const release: PlannedWrite[] = [];
  for (const unique of after) {
    if (held.has(unique.key)) continue;
    const holder = await currentHolder(store, codec, unique.key);
    if (holder.owner === ownerStreamId) continue;
    if (holder.owner !== undefined) {
      throw new AppError('NOT_UNIQUE', unique.message, { errors: [{ field: unique.field, message: unique.message }] });
    }
    const data = { key: unique.key, ownerStreamId };
    reserve.push({
      streamId: uniqueStreamId(unique.key),
      expectedRevision: holder.revision ?? 'no_stream',
      events: [encode({ type: 'UniqueValueReserved', data })],
      undo: encode({ type: 'UniqueValueReleased', data }),
    });
  }
  for (const unique of before) {
    if (wanted.has(unique.key)) continue;
    const holder = await currentHolder(store, codec, unique.key);
    if (holder.owner !== ownerStreamId || holder.revision === undefined) continue;
    const data = { key: unique.key, ownerStreamId };
    release.push({
      streamId: uniqueStreamId(unique.key),
      expectedRevision: holder.revision,
      events: [encode({ type: 'UniqueValueReleased', data })],
      undo: encode({ type: 'UniqueValueReserved', data }),
    });
  }
  return { reserve, release };
}
