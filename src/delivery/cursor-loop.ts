import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../events/store/port.js';
import type { Logger } from '../log.js';
import type { SqlPool } from '../storage/pool.js';

/**
 * The one loop behind everything that leaves the service from the log (webhooks, notifications).
 * Each target (a webhook, a notification integration) has a cursor in `delivery_cursors`: the
 * position of the last event it was given or passed over. A round claims the cursor's lease, reads
 * the log after it (gap-free: an event is never passed before an earlier one can still commit),
 * sends each event the target wants in log order and moves the cursor after each success. Order per
 * entity follows from order over the log; at least once follows from moving the cursor only after
 * the send (a crash between the two sends the event again). The lease keeps two replicas from
 * serving one target at once; a replica that lost it stops at its next write.
 *
 * A failed send waits `retryBaseMs` doubled per attempt (up to `retryMaxMs`) and tries the same
 * event again. After `maxAttempts` the channel decides: `dead` stops the target at that event until
 * someone re-drives it (./cursors.ts; later events are never sent before it), `skip` logs the loss
 * and goes on (a chat message hours late helps nobody, and must not hold back the next ones).
 */

/** What a channel serves: its id keys the cursor; a new revision means its settings changed. */
export interface DeliveryTarget {
  readonly id: string;
  readonly revision: number;
}

/** One kind of outgoing delivery: which targets there are, what each wants, how to send it. */
export interface DeliveryChannel<T extends DeliveryTarget> {
  /** For logs: `webhook`, `notification`. */
  readonly name: string;
  /** What happens after the last attempt at one event. */
  readonly exhausted: 'dead' | 'skip';
  /** The targets to serve now (enabled, not deleted). */
  targets(): Promise<readonly T[]>;
  /** Where a new target's cursor starts: the position of its own creation (it gets what happens after it exists). */
  startPosition(target: T): Promise<bigint | undefined>;
  /** Whether the target wants the event; `later` when that cannot be told yet (the read side is behind it). */
  matches(target: T, recorded: RecordedEvent): Promise<boolean | 'later'>;
  /** Sends one event; answers the error when it was not taken, null when it was. */
  send(target: T, recorded: RecordedEvent): Promise<string | null>;
}

/** How the loop runs. */
export interface CursorLoopDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly log: Logger;
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How often idle loops look for new events (default 500 ms). */
  readonly pollIntervalMs?: number;
  /** How long a claimed cursor stays this process's without a write (default 30 s). */
  readonly leaseMs?: number;
  /** Events read per round (default 100). */
  readonly batchSize?: number;
}

/** A running delivery: `stop` ends it after the round in flight. */
export interface RunningDelivery {
  stop(): Promise<void>;
}

interface ClaimRow {
  readonly position: string;
  readonly attempts: number;
}

/** Starts serving every target of the channel; one round per target at a time. */
export function startCursorLoop<T extends DeliveryTarget>(deps: CursorLoopDeps, channel: DeliveryChannel<T>): RunningDelivery {
  const { pool, store, log } = deps;
  const me = randomUUID();
  const pollIntervalMs = deps.pollIntervalMs ?? 500;
  const leaseSeconds = (deps.leaseMs ?? 30_000) / 1000;
  const batchSize = deps.batchSize ?? 100;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  /**
   * How far each target's cursor was when this process last held it: a target already at the log's
   * head is not claimed (a claim is a write, and an idle service should write nothing).
   */
  const known = new Map<string, bigint>();

  /** The cursor at the target's creation. */
  async function startCursor(target: T): Promise<void> {
    const position = await channel.startPosition(target);
    if (position === undefined) return;
    await pool.query('INSERT INTO delivery_cursors (target_id, position) VALUES ($1, $2) ON CONFLICT (target_id) DO NOTHING', [
      target.id,
      String(position),
    ]);
  }

  /** Claims the target's cursor when it is free, due and alive; undefined otherwise. */
  async function claim(targetId: string): Promise<ClaimRow | undefined> {
    const { rows } = await pool.query<ClaimRow>(
      `UPDATE delivery_cursors SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), updated_at = now()
        WHERE target_id = $1 AND state = 'active' AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
          AND (next_attempt_at IS NULL OR next_attempt_at <= now())
        RETURNING position::text AS position, attempts`,
      [targetId, me, leaseSeconds],
    );
    return rows[0];
  }

  /** Moves the cursor (and renews the lease); false when the lease was lost meanwhile. */
  async function advance(targetId: string, position: bigint, delivered: boolean): Promise<boolean> {
    const { rows } = await pool.query(
      `UPDATE delivery_cursors SET position = $3, attempts = 0, next_attempt_at = NULL, last_error = NULL, failed_event_id = NULL,
         delivered = delivered + $4, last_delivered_at = CASE WHEN $4 > 0 THEN now() ELSE last_delivered_at END,
         lease_until = now() + make_interval(secs => $5), updated_at = now()
        WHERE target_id = $1 AND lease_owner = $2 RETURNING target_id`,
      [targetId, me, String(position), delivered ? 1 : 0, leaseSeconds],
    );
    return rows.length > 0;
  }

  /**
   * Records a failed attempt at `recorded`: a later retry; after the last attempt, the dead state
   * (`dead` channels) or the event passed over with its error kept (`skip` channels). Answers
   * whether the round may go on (only after a skip).
   */
  async function failed(targetId: string, passed: bigint, attempts: number, error: string, recorded: RecordedEvent): Promise<boolean> {
    const context = { [`${channel.name}Id`]: targetId, eventId: recorded.eventId, eventType: recorded.type, attempts, error };
    if (attempts >= deps.maxAttempts && channel.exhausted === 'skip') {
      log.warn(context, `${channel.name} not delivered after its last attempt; passed over`);
      const { rows } = await pool.query(
        `UPDATE delivery_cursors SET position = $3, attempts = 0, next_attempt_at = NULL, last_error = $4, failed_event_id = $5,
           updated_at = now() WHERE target_id = $1 AND lease_owner = $2 RETURNING target_id`,
        [targetId, me, String(recorded.position), error.slice(0, 2000), recorded.eventId],
      );
      return rows.length > 0;
    }
    const dead = attempts >= deps.maxAttempts;
    const waitMs = Math.min(deps.retryBaseMs * 2 ** (attempts - 1), deps.retryMaxMs);
    await pool.query(
      `UPDATE delivery_cursors SET position = $3, attempts = $4, last_error = $5, failed_event_id = $6, state = $7,
         next_attempt_at = CASE WHEN $7 = 'dead' THEN NULL ELSE now() + make_interval(secs => $8) END,
         lease_owner = NULL, lease_until = NULL, updated_at = now()
        WHERE target_id = $1 AND lease_owner = $2`,
      [targetId, me, String(passed), attempts, error.slice(0, 2000), recorded.eventId, dead ? 'dead' : 'active', waitMs / 1000],
    );
    if (dead) log.warn(context, `${channel.name} dead after its last attempt: re-drive it once the target works`);
    else log.info({ ...context, retryInMs: waitMs }, `${channel.name} delivery failed; retrying`);
    return false;
  }

  /** One round for one target: as many events as one read brings, until one fails. */
  async function serve(target: T, head: bigint | undefined): Promise<void> {
    const at = known.get(target.id);
    if (at !== undefined && (head === undefined || at >= head)) return;
    let claimed = await claim(target.id);
    if (!claimed) {
      await startCursor(target);
      claimed = await claim(target.id);
      if (!claimed) return;
    }
    let position = BigInt(claimed.position);
    let passed = position;
    let attempts = claimed.attempts;
    known.delete(target.id); // unknown until this round's end says where it stopped
    for (const recorded of await store.readAll({ after: position, limit: batchSize })) {
      if (stopped) break;
      const wanted = await channel.matches(target, recorded);
      if (wanted === 'later') break; // the next round asks again
      if (!wanted) {
        passed = recorded.position;
        continue;
      }
      const error = await channel.send(target, recorded);
      if (error !== null) {
        if (!(await failed(target.id, passed, attempts + 1, error, recorded))) return;
        position = passed = recorded.position;
        attempts = 0;
        continue;
      }
      position = passed = recorded.position;
      if (!(await advance(target.id, position, true))) return; // another replica holds it now
      attempts = 0;
    }
    if (passed !== position && !(await advance(target.id, passed, false))) return;
    known.set(target.id, passed);
    // Let go, so that any replica may take the next round.
    await pool.query('UPDATE delivery_cursors SET lease_owner = NULL, lease_until = NULL WHERE target_id = $1 AND lease_owner = $2', [
      target.id,
      me,
    ]);
  }

  async function runRound(): Promise<void> {
    const targets = await channel.targets();
    if (targets.length === 0) return;
    const head = await store.headPosition();
    await Promise.all(
      targets.map((target) =>
        serve(target, head).catch((error: unknown) =>
          log.warn({ err: error, [`${channel.name}Id`]: target.id }, `${channel.name} round failed; next round retries`),
        ),
      ),
    );
  }

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = runRound()
        .catch((error: unknown) => log.warn({ err: error }, `${channel.name} delivery round failed; retrying`))
        .finally(schedule);
    }, pollIntervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
