import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { isTransientDatabaseError } from '../storage/errors.js';
import { withTransaction, type SqlClient, type SqlPool } from '../storage/pool.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import type { EventStore, RecordedEvent, Subscription } from '../events/store/port.js';
import type { Logger } from '../log.js';
import type { Projection } from './projection.js';

/** Advisory lock key of a projection: stable across processes, distinct per name. */
export function projectionLockKey(name: string): number {
  let hash = 7_146_100;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** What a projection runner is doing. */
export type RunnerState = 'starting' | 'running' | 'standby' | 'stopped' | 'failed';

/** What a projection runner needs. */
export interface RunnerDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  readonly batchSize: number;
  /** How long a standby or a runner that lost its store waits before trying again. */
  readonly retryDelayMs?: number;
}

/** Raised inside a batch transaction when another process holds the projection's lock. */
class Standby extends Error {}

/** The checkpoint moved under us (another replica, or a rebuild swapped tables): resubscribe from it. */
class Resync extends Error {}

/** A projector error on one event: the projection stops visibly, the server keeps going. */
export class PoisonEvent extends Error {
  constructor(
    readonly event: RecordedEvent,
    readonly reason: unknown,
    /** Position of the event just before it in the batch: everything up to there is applied. */
    readonly before: bigint | undefined,
  ) {
    super(`projection failed on event ${event.eventId} (${event.type}) at position ${event.position}: ${String(reason instanceof Error ? reason.message : reason)}`);
  }
}

/**
 * Runs one projection: subscribe from its checkpoint, apply each batch and move the checkpoint in the
 * same transaction. A per-batch advisory lock plus `FOR UPDATE` on the checkpoint row make sure only
 * one process applies a given batch, and never twice; the others stand by and retry.
 */
export class ProjectionRunner {
  readonly progress = new EventEmitter();
  private subscription: Subscription | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  state: RunnerState = 'starting';
  position: bigint | undefined;

  constructor(
    readonly projection: Projection,
    private readonly deps: RunnerDeps,
  ) {
    this.progress.setMaxListeners(0);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.stop();
    await this.loop;
    if (this.state !== 'failed') this.state = 'stopped';
  }

  private async run(): Promise<void> {
    const { log } = this.deps;
    const name = this.projection.name;
    while (!this.stopping) {
      try {
        const checkpoint = await this.readCheckpoint();
        if (checkpoint.status === 'failed') {
          // Stays stopped until a rebuild resets the status; then it picks up where the rebuild ended.
          if (this.state !== 'failed') log.error({ projection: name, error: checkpoint.error }, 'projection is stopped on a poison event; rebuild it');
          this.state = 'failed';
          await delay(this.deps.retryDelayMs ?? 1000);
          continue;
        }
        // stop() may have run during the await above: subscribing now would leave a subscription that
        // nobody stops (and stop() waiting on it forever). Nothing awaits between here and subscribe.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.stopping) return;
        this.position = checkpoint.position;
        this.state = 'running';
        this.subscription = this.deps.store.subscribe({
          after: checkpoint.position,
          batchSize: this.deps.batchSize,
          onBatch: (events) => this.applyBatch(events),
        });
        await this.subscription.done;
        // stop() flips the flag while the subscription runs (TypeScript cannot see that across the await).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.stopping) return;
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.stopping) return;
        if (error instanceof PoisonEvent) {
          await this.markFailed(error);
          continue;
        }
        if (error instanceof Resync) continue;
        if (error instanceof Standby) {
          this.state = 'standby';
          log.debug({ projection: name }, 'another process is running this projection; standing by');
        } else {
          log.warn({ err: error, projection: name }, 'projection interrupted; resuming from its checkpoint');
        }
        await delay(this.deps.retryDelayMs ?? 1000);
      }
    }
  }

  private async readCheckpoint(): Promise<{ position: bigint | undefined; status: string; error: string | null }> {
    const name = this.projection.name;
    await this.deps.pool.query('INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
    const { rows } = await this.deps.pool.query<{ position: string | null; status: string; error: string | null }>(
      'SELECT position, status, error FROM projection_checkpoints WHERE name = $1',
      [name],
    );
    const row = rows[0];
    return { position: row?.position == null ? undefined : BigInt(row.position), status: row?.status ?? 'running', error: row?.error ?? null };
  }

  private async applyBatch(events: readonly RecordedEvent[]): Promise<void> {
    const last = events.at(-1);
    if (!last) return;
    let poison: PoisonEvent | undefined;
    let committed: bigint | undefined;
    await withTransaction(this.deps.pool, async (tx) => {
      const { rows: lock } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [projectionLockKey(this.projection.name)]);
      if (!lock[0]?.locked) throw new Standby();
      const { rows } = await tx.query<{ position: string | null }>('SELECT position FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [this.projection.name]);
      const done = rows[0]?.position == null ? undefined : BigInt(rows[0].position);
      if (done !== this.position) throw new Resync();
      let reached: bigint | undefined = last.position;
      try {
        await applyEvents(tx, this.projection, this.deps.codec, events);
      } catch (error) {
        if (!(error instanceof PoisonEvent)) throw error;
        // Keep what came before the poison event: commit it, and stop exactly there.
        poison = error;
        reached = error.before;
      }
      if (reached !== undefined) {
        await tx.query('UPDATE projection_checkpoints SET position = $2, updated_at = now() WHERE name = $1', [this.projection.name, String(reached)]);
        committed = reached;
      }
    });
    // Only now is the batch visible to other connections: read-your-writes waiters trust this value.
    if (committed !== undefined) {
      this.position = committed;
      this.progress.emit('position', committed);
    }
    if (poison) throw poison;
  }

  private async markFailed(error: PoisonEvent): Promise<void> {
    this.state = 'failed';
    this.deps.log.error(
      { projection: this.projection.name, eventId: error.event.eventId, eventType: error.event.type, position: String(error.event.position), err: error.reason },
      'projection stopped on a poison event',
    );
    await this.deps.pool
      .query("UPDATE projection_checkpoints SET status = 'failed', error = $2, failed_event_id = $3, updated_at = now() WHERE name = $1", [
        this.projection.name,
        error.message,
        error.event.eventId,
      ])
      .catch((e: unknown) => this.deps.log.error({ err: e }, 'could not record the projection failure'));
    this.progress.emit('failed', error);
  }
}

/**
 * Decodes and applies the events the projection handles. When the batch fails, it is applied again
 * one event at a time (each under a savepoint) to find and name the poison event.
 */
export async function applyEvents(tx: SqlClient, projection: Projection, codec: EventCodec, events: readonly RecordedEvent[]): Promise<void> {
  const relevant = events.filter((e) => projection.handles.has(e.type));
  if (relevant.length === 0) return;
  await tx.query('SAVEPOINT batch');
  try {
    await projection.applyBatch(tx, relevant.map((e) => codec.decode(e)));
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
      await projection.applyBatch(tx, [decoded]);
      await tx.query('RELEASE SAVEPOINT one');
    } catch (reason) {
      if (isTransientDatabaseError(reason)) throw reason;
      await tx.query('ROLLBACK TO SAVEPOINT one');
      throw new PoisonEvent(event, reason, before);
    }
  }
}
