import { randomUUID } from 'node:crypto';
import { AppError, type FieldIssue } from '../errors.js';
import type { DomainEvent, EventCodec } from '../events/codec.js';
import type { ReferenceEvent } from '../events/reference.js';
import {
  StreamRevisionConflictError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type StreamWrite,
} from '../events/store/port.js';
import type { Ref } from './decider.js';
import { referenceTargets } from './kinds.js';
import { fold } from './decider.js';

/** The one place a reference stream id is built. */
export const referenceStreamId = (kind: string, id: string): string => `refs-${kind}-${id}`;

/** An entity that points at another, and through which field. */
export interface Referrer {
  readonly kind: string;
  readonly id: string;
  readonly field: string;
}

/** A reference stream longer than this is compacted when it is next read (its live referrers in one event). */
export const REFERENCE_COMPACTION_THRESHOLD = 64;

/**
 * Who points at `kind`/`id` now, and the reference stream's revision (to assert it unchanged). A
 * stream grown past REFERENCE_COMPACTION_THRESHOLD events (referrers that came and went) is
 * compacted on the way: its live referrers are appended as one `ReferencesCompacted` event at the
 * revision just read (a concurrent change wins: compaction is skipped), then the events before it
 * are truncated. Reads then cost the live referrers, not the stream's history.
 */
export async function loadReferrers(
  store: EventStore,
  codec: EventCodec,
  kind: string,
  id: string,
): Promise<{ referrers: Referrer[]; revision: bigint | undefined }> {
  const streamId = referenceStreamId(kind, id);
  const recorded = await store.readStream(streamId);
  const current = new Map<string, Referrer>();
  const keyOfReferrer = (r: Referrer): string => `${r.kind}:${r.id}:${r.field}`;
  for (const r of recorded) {
    const { event } = codec.decode<ReferenceEvent>(r);
    if (event.type === 'ReferencesCompacted') {
      current.clear();
      for (const r of event.data.referrers) {
        const referrer = { kind: r.referrerKind, id: r.referrerId, field: r.field };
        current.set(keyOfReferrer(referrer), referrer);
      }
      continue;
    }
    const referrer = { kind: event.data.referrerKind, id: event.data.referrerId, field: event.data.field };
    if (event.type === 'ReferenceAdded') current.set(keyOfReferrer(referrer), referrer);
    else current.delete(keyOfReferrer(referrer));
  }
  const referrers = [...current.values()];
  const revision = recorded.at(-1)?.streamRevision;
  if (revision === undefined || recorded.length <= REFERENCE_COMPACTION_THRESHOLD) return { referrers, revision };
  return { referrers, revision: await compact(store, codec, streamId, referrers, revision) };
}

/** Appends the snapshot at `revision` and truncates what it supersedes; the stream's revision afterwards. */
async function compact(
  store: EventStore,
  codec: EventCodec,
  streamId: string,
  referrers: readonly Referrer[],
  revision: bigint,
): Promise<bigint> {
  const snapshot = codec.encode(
    {
      type: 'ReferencesCompacted',
      data: { referrers: referrers.map((r) => ({ referrerKind: r.kind, referrerId: r.id, field: r.field })) },
    },
    { actorId: null, correlationId: `compaction:${streamId}`, causationId: null, occurredAt: new Date().toISOString() },
    randomUUID(),
  );
  try {
    const appended = await store.append(streamId, [snapshot], { expectedRevision: revision });
    const at = appended.revisions.get(streamId) ?? revision + 1n;
    await store.truncate(streamId, at);
    return at;
  } catch (error) {
    // The stream moved since it was read: the caller asserts the revision it read and will retry if needed.
    if (error instanceof StreamRevisionConflictError) return revision;
    throw error;
  }
}

/** The reference writes and guards a command needs. */
export interface ReferencePlan {
  /** ReferenceAdded writes (undone by ReferenceRemoved where a store cannot append atomically). */
  readonly add: readonly (StreamWrite & { readonly undo: NewEvent })[];
  /** Zero-event writes asserting each newly referenced entity is still as it was checked. */
  readonly guards: readonly StreamWrite[];
  readonly remove: readonly StreamWrite[];
}

const keyOf = (ref: Ref): string => `${ref.kind}:${ref.id}:${ref.field}`;

/**
 * Checks the references a command adds (each must name an existing, non-deleted, enabled entity:
 * otherwise one 422 listing every bad field) and plans the writes that record them.
 */
export async function planReferences(
  store: EventStore,
  codec: EventCodec,
  owner: { kind: string; id: string },
  before: readonly Ref[],
  after: readonly Ref[],
  encode: (event: DomainEvent) => NewEvent,
): Promise<ReferencePlan> {
  const had = new Set(before.map(keyOf));
  const has = new Set(after.map(keyOf));
  const errors: FieldIssue[] = [];
  const add: (StreamWrite & { undo: NewEvent })[] = [];
  const guards: StreamWrite[] = [];
  const remove: StreamWrite[] = [];
  const referrerOf = (ref: Ref) => ({ referrerKind: owner.kind, referrerId: owner.id, field: ref.field });

  for (const ref of after) {
    if (had.has(keyOf(ref))) continue;
    const field = ref.index === undefined ? ref.field : `${ref.field}[${ref.index}]`;
    const target = referenceTargets.get(ref.kind);
    if (!target) {
      errors.push({ field, message: `${ref.kind} ${ref.id} does not exist` });
      continue;
    }
    const recorded = await store.readStream(target.aggregate.streamId(ref.id));
    const state = fold(
      target.aggregate,
      recorded.map((r) => codec.decode(r).event),
    );
    const verdict = target.referenceable(state);
    if (verdict === 'missing') errors.push({ field, message: `${ref.kind} ${ref.id} does not exist` });
    if (verdict === 'disabled') errors.push({ field, message: `${ref.kind} ${ref.id} is disabled and cannot be newly referenced` });
    if (verdict !== 'ok') continue;
    guards.push({
      streamId: target.aggregate.streamId(ref.id),
      expectedRevision: recorded.at(-1)?.streamRevision ?? 'no_stream',
      events: [],
    });
    // 'any': adding needs no read of a stream that may hold thousands of referrers; it still moves
    // the revision a concurrent delete asserts, so that delete conflicts and re-checks.
    add.push({
      streamId: referenceStreamId(ref.kind, ref.id),
      expectedRevision: 'any',
      events: [encode({ type: 'ReferenceAdded', data: referrerOf(ref) })],
      undo: encode({ type: 'ReferenceRemoved', data: referrerOf(ref) }),
    });
  }
  if (errors.length > 0)
    throw new AppError('INVALID_REFERENCE', `invalid references: ${errors.map((e) => e.field).join(', ')}`, { errors });

  for (const ref of before) {
    if (has.has(keyOf(ref))) continue;
    remove.push({
      streamId: referenceStreamId(ref.kind, ref.id),
      expectedRevision: 'any',
      events: [encode({ type: 'ReferenceRemoved', data: referrerOf(ref) })],
    });
  }
  return { add, guards, remove };
}

/** Refuses to delete an entity others still point at; otherwise asserts that stays true at append. */
export async function deletionGuard(store: EventStore, codec: EventCodec, kind: string, id: string): Promise<StreamWrite> {
  const { referrers, revision } = await loadReferrers(store, codec, kind, id);
  if (referrers.length > 0) {
    const list = referrers.map((r) => `${r.kind} ${r.id} (${r.field})`).join(', ');
    throw new AppError('STILL_REFERENCED', `the ${kind} is still referenced by ${list}`, { details: { referrers } });
  }
  return { streamId: referenceStreamId(kind, id), expectedRevision: revision ?? 'no_stream', events: [] };
}

/**
 * One write per stream: a command may add several references to one entity through different
 * fields, and assert a stream's revision for several rules. Two assertions that disagree mean the
 * stream moved between the two reads, so one rule decided on stale facts: that is a revision conflict
 * (the handler decides again), never a silent pick of the newer revision.
 */
export function mergeWrites(writes: readonly StreamWrite[]): StreamWrite[] {
  const byStream = new Map<string, StreamWrite>();
  for (const write of writes) {
    const existing = byStream.get(write.streamId);
    byStream.set(
      write.streamId,
      existing
        ? {
            streamId: write.streamId,
            expectedRevision: bothExpected(write.streamId, existing.expectedRevision, write.expectedRevision),
            events: [...existing.events, ...write.events],
          }
        : write,
    );
  }
  return [...byStream.values()];
}

function bothExpected(streamId: string, a: ExpectedRevision, b: ExpectedRevision): ExpectedRevision {
  if (a === b || b === 'any') return a;
  if (a === 'any') return b;
  if (a === 'stream_exists' && typeof b === 'bigint') return b;
  if (b === 'stream_exists' && typeof a === 'bigint') return a;
  throw new StreamRevisionConflictError(streamId, a, typeof b === 'bigint' || b === 'no_stream' ? b : 'no_stream');
}
