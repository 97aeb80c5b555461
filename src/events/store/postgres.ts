import { EventEmitter } from 'node:events';
import type { Logger } from '../../log.js';
import { withTransaction, type SqlClient, type SqlPool } from '../../db/pool.js';
import {
  revisionMatches,
  StreamRevisionConflictError,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamWrite,
} from './port.js';
import { pollingSubscription } from './subscription.js';

/**
 * Appends take this transaction-scoped advisory lock before a position is allocated and hold it
 * until commit. Positions therefore become visible in allocation order, which is what makes `$all`
 * gap-free: a reader that sees position p has seen every committed position below p, and no
 * transaction still in flight can commit a lower one. (The lock is released after the commit is
 * visible in the proc array, so the next appender cannot overtake it.) On this machine's fsync
 * latency that serial section is well under a millisecond; see the README's benchmark figures.
 */
const APPEND_LOCK = 7_146_002;
const CHANNEL = 'infraledger_events';

interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  streamId: row.stream_id,
  streamRevision: BigInt(row.stream_revision),
  position: BigInt(row.global_position),
  recordedAt: row.recorded_at,
});

const COLUMNS = 'global_position, event_id, stream_id, stream_revision, type, data, metadata, recorded_at';

export interface PostgresEventStoreOptions {
  readonly pool: SqlPool;
  readonly log?: Logger;
  /** How often a live subscription looks for new events when no wake-up arrived. */
  readonly pollIntervalMs?: number;
}

/** The event store on PostgreSQL, unchanged on a real server and on embedded PGlite. */
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { pool, log } = options;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  let stopListening: Promise<() => Promise<void>> | undefined;

  // Other processes' appends arrive by NOTIFY (PostgreSQL only; PGlite has no other process).
  const ensureListening = (): void => {
    stopListening ??= pool
      .listen(CHANNEL, () => appended.emit('append'))
      .catch((error: unknown) => {
        log?.warn({ err: error }, 'LISTEN failed; subscriptions fall back to polling');
        return () => Promise.resolve();
      });
  };

  async function findExisting(tx: Pick<SqlClient, 'query'>, eventIds: readonly string[]): Promise<EventRow[]> {
    const { rows } = await tx.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY global_position`, [eventIds]);
    return rows;
  }

  /** A retry of a write that already committed: the same ids, in the same streams, in the same order. */
  function isSameWrite(writes: readonly StreamWrite[], existing: readonly EventRow[]): boolean {
    const expected = writes.flatMap((w) => w.events.map((e) => `${w.streamId}\u0000${e.eventId}`));
    return expected.length === existing.length && existing.every((row, i) => `${row.stream_id}\u0000${row.event_id}` === expected[i]);
  }

  function resultOf(rows: readonly EventRow[]): AppendResult {
    const revisions = new Map<string, bigint>();
    let position = 0n;
    for (const row of rows) {
      revisions.set(row.stream_id, BigInt(row.stream_revision));
      if (BigInt(row.global_position) > position) position = BigInt(row.global_position);
    }
    return { position, revisions };
  }

  async function appendMany(writes: readonly StreamWrite[]): Promise<AppendResult> {
    const all = writes.flatMap((w) => w.events);
    if (all.length === 0) throw new TypeError('appendMany needs at least one event');
    if (new Set(writes.map((w) => w.streamId)).size !== writes.length) throw new TypeError('appendMany takes each stream once');
    const result = await withTransaction(pool, (tx) => appendInTransaction(tx, writes, all)).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== '23505') throw error;
      // An event id is used already: only an exact retry of an earlier, committed write is accepted.
      const existing = await findExisting(pool, all.map((e) => e.eventId));
      if (isSameWrite(writes, existing)) return resultOf(existing);
      const first = writes[0];
      throw new StreamRevisionConflictError(first?.streamId ?? '', first?.expectedRevision ?? 'any', 'no_stream');
    });
    appended.emit('append');
    return result;
  }

  async function appendInTransaction(tx: SqlClient, writes: readonly StreamWrite[], all: readonly NewEvent[]): Promise<AppendResult> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
      const streamIds = writes.map((w) => w.streamId);
      const { rows: heads } = await tx.query<{ stream_id: string; revision: string }>(
        'SELECT stream_id, max(stream_revision)::text AS revision FROM events WHERE stream_id = ANY($1::text[]) GROUP BY stream_id',
        [streamIds],
      );
      const current = new Map(heads.map((h) => [h.stream_id, BigInt(h.revision)]));
      for (const write of writes) {
        const head = current.get(write.streamId);
        if (!revisionMatches(write.expectedRevision, head)) {
          const existing = await findExisting(tx, all.map((e) => e.eventId));
          if (existing.length > 0 && isSameWrite(writes, existing)) return resultOf(existing);
          throw new StreamRevisionConflictError(write.streamId, write.expectedRevision, head ?? 'no_stream');
        }
      }
      const ids: string[] = [];
      const streams: string[] = [];
      const revisions: string[] = [];
      const types: string[] = [];
      const data: string[] = [];
      const metadata: string[] = [];
      for (const write of writes) {
        let next = (current.get(write.streamId) ?? -1n) + 1n;
        for (const event of write.events) {
          ids.push(event.eventId);
          streams.push(write.streamId);
          revisions.push(String(next++));
          types.push(event.type);
          data.push(JSON.stringify(event.data));
          metadata.push(JSON.stringify(event.metadata));
        }
      }
      const { rows } = await tx.query<EventRow>(
          `WITH inserted AS (
             INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
             SELECT e.id, e.stream, e.revision, e.type, e.data, e.metadata
               FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[])
                    WITH ORDINALITY AS e(id, stream, revision, type, data, metadata, ordinality)
              ORDER BY e.ordinality
             RETURNING global_position, stream_id, stream_revision
           )
           SELECT global_position, stream_id, stream_revision, pg_notify('${CHANNEL}', global_position::text)
             FROM inserted ORDER BY global_position DESC LIMIT 1`,
          [ids, streams, revisions, types, data, metadata],
        );
      return { position: BigInt(rows[0]?.global_position ?? '0'), revisions: lastRevisions(writes, current) };
  }

  function lastRevisions(writes: readonly StreamWrite[], current: ReadonlyMap<string, bigint>): Map<string, bigint> {
    return new Map(writes.map((w) => [w.streamId, (current.get(w.streamId) ?? -1n) + BigInt(w.events.length)]));
  }

  async function readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const { rows } = await pool.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [
      String(after ?? 0n),
      limit,
    ]);
    return rows.map(toRecorded);
  }

  return {
    kind: pool.dialect,
    atomicMultiStream: true,
    append: (streamId: string, events: readonly NewEvent[], { expectedRevision }) => appendMany([{ streamId, expectedRevision, events }]),
    appendMany,
    async readStream(streamId) {
      const { rows } = await pool.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_revision`, [streamId]);
      return rows.map(toRecorded);
    },
    readAll,
    async headPosition() {
      const { rows } = await pool.query<{ position: string | null }>('SELECT max(global_position)::text AS position FROM events');
      return rows[0]?.position == null ? undefined : BigInt(rows[0].position);
    },
    subscribe(subscribeOptions) {
      ensureListening();
      return pollingSubscription({
        readAll,
        wakeUps: appended,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        ...subscribeOptions,
      });
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (stopListening) await (await stopListening)();
      appended.removeAllListeners();
    },
  };
}
