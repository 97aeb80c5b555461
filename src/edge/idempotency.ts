import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { SqlPool } from '../storage/pool.js';
import { DERIVED_CORRELATION_PREFIX } from './context.js';

/**
 * Safe retries of writes (`Idempotency-Key`): the first request with a key claims it; its answer is
 * kept, and a retry with the same key and request gets that answer again instead of running twice.
 * Keys are per caller and kept 24 hours, in the database, so every replica sees them. The edge-neutral
 * part lives here (REST uses it from src/http/idempotency-hook.ts).
 *
 * The request's events carry a correlation id derived from the caller and key, so when a process died
 * between committing and answering, a retry finds the committed events in the audit log and answers
 * from them instead of running the command again.
 */

/** How long a key is kept. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;
/** A claim without an answer younger than this is a request still running (the retry waits); older, a crashed one. */
export const IDEMPOTENCY_IN_PROGRESS_SECONDS = 30;

const KEY = /^[\x21-\x7e]{1,255}$/;

/** Who a key belongs to, the key, and what the request was (method, path, body). */
export interface IdempotentRequest {
  readonly caller: string;
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** A kept answer. `body` is null when the answer carried a secret (a token), which is never kept. */
export interface KeptAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/** What a key's claim found. */
export type Claim =
  | { readonly kind: 'claimed'; readonly correlationId: string }
  | { readonly kind: 'answered'; readonly answer: KeptAnswer }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'interrupted'; readonly correlationId: string };

/** Refuses a key that is not 1–255 visible ASCII characters. */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(',') : value;
  if (!KEY.test(key)) {
    throw new AppError('VALIDATION', 'invalid Idempotency-Key: 1 to 255 visible ASCII characters', {
      errors: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
    });
  }
  return key;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted, so the same body always fingerprints the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** The correlation id every event of the request carries: derived from caller and key, never the key itself. */
export const idempotentCorrelationId = (caller: string, key: string): string =>
  `${DERIVED_CORRELATION_PREFIX}${sha256(`${caller}\u0000${key}`).slice(0, 32)}`;

/**
 * Claims the key for this request, or says what became of an earlier request with it. The same key
 * with another method, path or body is a 422.
 */
export async function claimIdempotencyKey(pool: SqlPool, request: IdempotentRequest, now: Date): Promise<Claim> {
  const fingerprint = sha256(`${request.method} ${request.path}\n${canonical(request.body)}`);
  const correlationId = idempotentCorrelationId(request.caller, request.key);
  // An expired key is claimed afresh, in the same statement, as if it had never been used.
  const { rows: inserted } = await pool.query<{ caller: string }>(
    `INSERT INTO idempotency_keys (caller, key, fingerprint, correlation_id, method, path, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (caller, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, correlation_id = EXCLUDED.correlation_id, method =
       EXCLUDED.method,
       path = EXCLUDED.path, status = NULL, headers = '{}', body = NULL, created_at = EXCLUDED.created_at
     WHERE idempotency_keys.created_at < $7::timestamptz - make_interval(hours => ${IDEMPOTENCY_RETENTION_HOURS})
     RETURNING caller`,
    [request.caller, request.key, fingerprint, correlationId, request.method, request.path, now.toISOString()],
  );
  if (inserted.length > 0) return { kind: 'claimed', correlationId };
  const { rows } = await pool.query<{
    fingerprint: string;
    status: number | null;
    headers: Record<string, string>;
    body: string | null;
    created_at: Date | string;
  }>('SELECT fingerprint, status, headers, body, created_at FROM idempotency_keys WHERE caller = $1 AND key = $2', [
    request.caller,
    request.key,
  ]);
  const row = rows[0];
  if (!row) return claimIdempotencyKey(pool, request, now); // pruned in between: claim again
  if (row.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used for a different request (method, path or body)', {
      errors: [{ field: 'Idempotency-Key', message: 'already used for a different request' }],
    });
  }
  if (row.status !== null) return { kind: 'answered', answer: { status: row.status, headers: row.headers, body: row.body } };
  const age = (now.getTime() - new Date(row.created_at).getTime()) / 1000;
  return age < IDEMPOTENCY_IN_PROGRESS_SECONDS ? { kind: 'in_progress' } : { kind: 'interrupted', correlationId };
}

/** Keeps the answer of the request that claimed the key. */
export async function keepIdempotentAnswer(pool: SqlPool, caller: string, key: string, answer: KeptAnswer): Promise<void> {
  await pool.query('UPDATE idempotency_keys SET status = $3, headers = $4, body = $5 WHERE caller = $1 AND key = $2', [
    caller,
    key,
    answer.status,
    JSON.stringify(answer.headers),
    answer.body,
  ]);
}

/** Gives the key back (the request failed on the service's side, or is taken over): a retry runs it. */
export async function releaseIdempotencyKey(pool: SqlPool, caller: string, key: string, now?: Date): Promise<void> {
  if (now) await pool.query('UPDATE idempotency_keys SET created_at = $3 WHERE caller = $1 AND key = $2', [caller, key, now.toISOString()]);
  else await pool.query('DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND status IS NULL', [caller, key]);
}

/** The entity the interrupted request's events changed, from the audit log (first event first): only the caller's own events. */
export async function committedEntityOf(
  pool: SqlPool,
  correlationId: string,
  caller: string,
): Promise<{ entityType: string; entityId: string; deleted: boolean } | undefined> {
  const { rows } = await pool.query<{ entity_type: string; entity_id: string | null; action: string }>(
    'SELECT entity_type, entity_id, action FROM audit_log WHERE correlation_id = $1 AND actor_id = $2 AND entity_type NOT IN ' +
      "('unique', 'refs') ORDER BY position, id",
    [correlationId, caller],
  );
  const first = rows.find((r) => r.entity_id !== null);
  if (!first?.entity_id) return undefined;
  return {
    entityType: first.entity_type,
    entityId: first.entity_id,
    deleted: rows.some((r) => r.action.endsWith('Deleted') && r.entity_id === first.entity_id),
  };
}

/** Drops keys past their retention. */
export async function pruneIdempotencyKeys(pool: SqlPool, now: Date): Promise<void> {
  await pool.query(
    `DELETE FROM idempotency_keys WHERE created_at < $1::timestamptz - make_interval(hours => ${IDEMPOTENCY_RETENTION_HOURS})`,
    [now.toISOString()],
  );
}
