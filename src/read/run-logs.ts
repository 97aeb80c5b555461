import { truncationMarker, utf8Prefix } from '../model/run.js';
import { withTransaction, type SqlPool } from '../storage/pool.js';

/**
 * Run logs (docs/contract.md §2, "Runs"): what runners append, in `run_log_chunks`, never in the
 * event store (logs are large, and retention must be able to delete them). Each append locks its
 * run's head row, so concurrent appends to one run get consecutive sequence numbers and the bound
 * holds exactly. Content arrives here already masked (src/edge/writes/run-logs.ts).
 */

/** The channel an append notifies (payload: the run id), so live tails on other replicas wake. */
export const RUN_LOG_CHANNEL = 'infraledger_run_logs';

/** What one append did. */
export interface Appended {
  /** The chunk's sequence number (1, 2, …); null when nothing was stored (the log was full already). */
  readonly seq: number | null;
  /** Bytes of this chunk stored (less than sent when the bound cut it). */
  readonly acceptedBytes: number;
  /** Bytes of the run's log now stored (without the truncation marker). */
  readonly bytes: number;
  /** Whether the log reached its bound: later appends are dropped. */
  readonly truncated: boolean;
}

/** One stored chunk. */
export interface RunLogChunk {
  readonly runId: string;
  readonly seq: number;
  readonly content: string;
  readonly at: string;
}

interface HeadRow {
  bytes: string | number;
  chunks: number;
  truncated: boolean;
}

/**
 * Appends `content` (masked) to a run's log, at most `maxBytes` per run: the part that still fits is
 * stored, followed by the truncation marker, and everything after is dropped.
 */
export async function appendRunLog(
  pool: SqlPool,
  entry: { readonly runId: string; readonly resourceId: string; readonly content: string; readonly at: Date },
  maxBytes: number,
): Promise<Appended> {
  const at = entry.at.toISOString();
  return withTransaction(pool, async (tx) => {
    await tx.query(
      'INSERT INTO run_log_heads (run_id, resource_id, bytes, chunks, truncated, updated_at) VALUES ($1, $2, 0, 0, false, $3) ON ' +
        'CONFLICT (run_id) DO NOTHING',
      [entry.runId, entry.resourceId, at],
    );
    const { rows } = await tx.query<HeadRow>('SELECT bytes, chunks, truncated FROM run_log_heads WHERE run_id = $1 FOR UPDATE', [
      entry.runId,
    ]);
    const head = rows[0];
    if (!head) throw new Error(`run log head of ${entry.runId} vanished inside its transaction`);
    const stored = Number(head.bytes);
    if (head.truncated) return { seq: null, acceptedBytes: 0, bytes: stored, truncated: true };
    const size = Buffer.byteLength(entry.content, 'utf8');
    const fits = stored + size <= maxBytes;
    const kept = fits ? entry.content : utf8Prefix(entry.content, maxBytes - stored);
    const keptBytes = fits ? size : Buffer.byteLength(kept, 'utf8');
    const content = fits ? kept : kept + truncationMarker(maxBytes);
    const seq = head.chunks + 1;
    await tx.query('INSERT INTO run_log_chunks (run_id, seq, content, bytes, at) VALUES ($1, $2, $3, $4, $5)', [
      entry.runId,
      seq,
      content,
      Buffer.byteLength(content, 'utf8'),
      at,
    ]);
    await tx.query('UPDATE run_log_heads SET bytes = $2, chunks = $3, truncated = $4, updated_at = $5 WHERE run_id = $1', [
      entry.runId,
      stored + keptBytes,
      seq,
      !fits,
      at,
    ]);
    // Delivered at commit; listeners on other replicas read the new chunks then.
    await tx.query('SELECT pg_notify($1, $2)', [RUN_LOG_CHANNEL, entry.runId]);
    return { seq, acceptedBytes: keptBytes, bytes: stored + keptBytes, truncated: !fits };
  });
}

/** Chunks one log read returns at most (REST and GraphQL). */
export const LOG_PAGE_CHUNKS = 1000;
/** About how many bytes of content one log read returns (at least one chunk). */
export const LOG_PAGE_BYTES = 1024 * 1024;

/** A page of a run's log. */
export interface RunLogPage {
  readonly chunks: readonly RunLogChunk[];
  /** Bytes of the whole log stored so far. */
  readonly bytes: number;
  readonly truncated: boolean;
}

interface ChunkRow {
  seq: number;
  content: string;
  at: Date | string;
}

/**
 * The chunks after `after` (a sequence number; 0 for the start), at most `limit`, and no more than
 * about `maxBytes` of content (always at least one chunk, so a reader makes progress).
 */
export async function readRunLog(pool: SqlPool, runId: string, after: number, limit: number, maxBytes: number): Promise<RunLogPage> {
  const [chunks, head] = await Promise.all([
    pool.query<ChunkRow>(
      `SELECT seq, content, at FROM (
         SELECT seq, content, at, bytes, sum(bytes) OVER (ORDER BY seq) AS running
         FROM run_log_chunks WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
       ) AS page WHERE running - bytes < $4 ORDER BY seq`,
      [runId, after, limit, maxBytes],
    ),
    pool.query<HeadRow>('SELECT bytes, chunks, truncated FROM run_log_heads WHERE run_id = $1', [runId]),
  ]);
  const state = head.rows[0];
  return {
    chunks: chunks.rows.map((row) => ({ runId, seq: row.seq, content: row.content, at: new Date(row.at).toISOString() })),
    bytes: state ? Number(state.bytes) : 0,
    truncated: state?.truncated ?? false,
  };
}

/** Deletes the logs of runs whose log last grew before `before`; returns how many runs' logs went. */
export async function deleteRunLogsBefore(pool: SqlPool, before: Date): Promise<number> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ run_id: string }>('DELETE FROM run_log_heads WHERE updated_at < $1 RETURNING run_id', [
      before.toISOString(),
    ]);
    if (rows.length === 0) return 0;
    await tx.query('DELETE FROM run_log_chunks WHERE run_id = ANY($1::uuid[])', [rows.map((row) => row.run_id)]);
    return rows.length;
  });
}
