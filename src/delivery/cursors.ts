import type { SqlPool } from '../storage/pool.js';

/** A webhook's delivery state as the API shows it (`GET /api/webhooks/{id}/delivery`). */
export interface WebhookDeliveryView {
  /** `active` while it delivers (or waits to retry), `dead` after too many failures at one event, `pending` before its first round. */
  readonly state: 'active' | 'dead' | 'pending';
  /** The position of the last event delivered or passed over (not matching); null while pending. */
  readonly position: string | null;
  /** Failed attempts at the next event. */
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastError: string | null;
  /** The event the webhook is dead at (re-driving starts with it). */
  readonly failedEventId: string | null;
  /** Events delivered so far. */
  readonly delivered: number;
  readonly lastDeliveredAt: string | null;
}

interface CursorRow {
  state: 'active' | 'dead';
  position: string;
  attempts: number;
  next_attempt_at: Date | string | null;
  last_error: string | null;
  failed_event_id: string | null;
  delivered: string;
  last_delivered_at: Date | string | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** The delivery state of a webhook (pending when no deliverer has started it yet). */
export async function readDelivery(pool: SqlPool, webhookId: string): Promise<WebhookDeliveryView> {
  const { rows } = await pool.query<CursorRow>(
    'SELECT state, position::text AS position, attempts, next_attempt_at, last_error, failed_event_id, delivered::text AS delivered, ' +
      'last_delivered_at FROM delivery_cursors WHERE target_id = $1',
    [webhookId],
  );
  const row = rows[0];
  if (!row) {
    return {
      state: 'pending',
      position: null,
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
      failedEventId: null,
      delivered: 0,
      lastDeliveredAt: null,
    };
  }
  return {
    state: row.state,
    position: row.position,
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastError: row.last_error,
    failedEventId: row.failed_event_id,
    delivered: Number(row.delivered),
    lastDeliveredAt: iso(row.last_delivered_at),
  };
}

/**
 * Sends a dead webhook on again from the event it died at, its attempts counted afresh. Answers
 * whether it was dead (re-driving a live one changes nothing).
 */
export async function redrive(pool: SqlPool, webhookId: string): Promise<boolean> {
  const { rows } = await pool.query<{ target_id: string }>(
    "UPDATE delivery_cursors SET state = 'active', attempts = 0, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, " +
      "updated_at = now() WHERE target_id = $1 AND state = 'dead' RETURNING target_id",
    [webhookId],
  );
  return rows.length > 0;
}
