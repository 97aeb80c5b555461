import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { isTransientDatabaseError } from '../storage/errors.js';
import { MARK_NOT_APPENDING } from '../storage/not-appending.js';
import type { SqlClient, SqlPool, SqlResult } from '../storage/pool.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import {
  UnconfirmedBatch,
  type BatchCheck,
  type EventStore,
  type PageReadAhead,
  type RecordedEvent,
  type Subscription,
} from '../events/store/port.js';
import type { Logger } from '../log.js';
import { FollowUps, type DueReads, type FollowingRead, type FollowUp } from './follow-ups.js';
import { HeldWrites } from './held-writes.js';
import { PreparedTexts } from './prepared-texts.js';
import type { BatchClient, Projection } from './projection.js';
import { applyEvents, PoisonEvent, projectionLockKey } from './apply.js';

/** What a projection is doing in this process. */
export type RunnerState = 'starting' | 'running' | 'standby' | 'stopped' | 'failed';

/**
 * One projection as this process runs it: its state, how far its tables are (applied and committed,
 * or nothing to apply up to there) and a `progress` emitter ('position' after each advance,
 * 'failed' on a poison event). Read-your-writes, `/readyz` and the CLI read these.
 */
export interface ProjectionLane {
  readonly projection: Projection;
  readonly progress: EventEmitter;
  readonly state: RunnerState;
  readonly position: bigint | undefined;
}

/** What a projection hub needs. */
export interface RunnerDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  readonly batchSize: number;
  /** How long a hub that lost its store, or whose projections another process holds, waits before trying again. */
  readonly retryDelayMs?: number;
  /**
   * How long a checkpoint moved without a transaction (nothing to apply) may stay unwritten (default
   * IDLE_FLUSH_MS). Other replicas' waits and standbys' reads (X-Min-Position) see it only then.
   */
  readonly idleFlushMs?: number;
  /**
   * Whether projections' `planOnce` writes may run as statements prepared once per connection
   * (./held-writes.ts; PostgreSQL only). False behind a pooler that keeps no prepared statements
   * (`DATABASE_PREPARED_STATEMENTS`): their values are then written into their text. Default true.
   */
  readonly prepareWrites?: boolean;
}

/** The checkpoint moved under us (another replica, or a rebuild swapped tables): resubscribe from it. */
class Resync extends Error {}

/** Another process holds a projection's lock: back off, then resubscribe from the checkpoints. */
class Standby extends Error {}

/** A projector threw in the all-at-once attempt: the batch is applied again projection by projection. */
class ProjectorFailed extends Error {}

class Lane implements ProjectionLane {
  readonly progress = new EventEmitter();
  state: RunnerState = 'starting';
  position: bigint | undefined;
  /** The checkpoint row as this process last read or wrote it. */
  persisted: bigint | undefined;
  readonly lockKey: number;

  constructor(readonly projection: Projection) {
    this.progress.setMaxListeners(0);
    this.lockKey = projectionLockKey(projection.name);
  }

  advance(position: bigint): void {
    if (this.position !== undefined && this.position >= position) return;
    this.position = position;
    this.progress.emit('position', position);
  }
}

interface CheckpointRow {
  name: string;
  position: string | null;
  status: string;
  error: string | null;
}

/** A projection name as an SQL literal; names are plain identifiers (checked when the hub is built). */
const literal = (name: string): string => `'${name}'`;
const SAFE_NAME = /^[a-z][a-z0-9_]*$/;

/** node-postgres answers a text of several statements with one result each; PGlite's pool with the last. */
const lastResult = <R>(result: SqlResult<R> | SqlResult<R>[]): SqlResult<R> =>
  Array.isArray(result) ? (result.at(-1) as SqlResult<R>) : result;

/** How a batch transaction begins: marked as never appending (it holds no reader of `$all` back). */
const BEGIN_MARKED = `BEGIN; ${MARK_NOT_APPENDING}`;
/**
 * A batch's settings: asynchronous commit, and projections' reads planned with their values. They
 * follow the claim (applyInOneMessage), whose plan is kept: it is the same on every batch.
 */
const BATCH_SETTINGS = 'SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL synchronous_commit = off';
const BEGIN_BATCH = `${BEGIN_MARKED}; ${BATCH_SETTINGS}`;

/**
 * How soon the checkpoints of projections a batch did not concern are written (one statement for all
 * of them): short, because a wait in another process (a replica's X-Min-Position, a standby's read)
 * sees them only then; at most one statement per this many milliseconds however busy the service.
 */
const IDLE_FLUSH_MS = 25;

/** The SQLSTATE a one-message batch raises when this process does not hold its projections as it thought. */
const CHECK_FAILED = 'IL001';
const isCheckFailed = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === CHECK_FAILED;
/** The SQLSTATE a batch of own appends raises when it is not the log's page (BatchCheck, migration 041). */
const UNCONFIRMED = 'IL003';
const isUnconfirmed = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === UNCONFIRMED;

/** The statement moving the checkpoints of the outcomes that moved (none when none did). */
function checkpointsMoved(outcomes: readonly LaneOutcome[]): string[] {
  const moved = outcomes.filter((o) => o.reached !== undefined && o.reached !== o.lane.persisted);
  if (moved.length === 0) return [];
  return [
    `UPDATE projection_checkpoints AS c SET position = v.position, updated_at = now()
       FROM (VALUES ${moved.map((o) => `(${literal(o.lane.projection.name)}, ${String(o.reached)}::bigint)`).join(', ')})
         AS v(name, position) WHERE c.name = v.name`,
  ];
}

/**
 * Sends what `batch` holds, then `statements` and COMMIT, in one message, with the subscription's read
 * of the next page after the COMMIT when it offers one (`readAhead`: the hub's next batch then needs
 * no round trip of its own to be read), and last the writers' reads the batch answers (`due`,
 * ./follow-ups.ts). A failure of a held projection write is that projection's failure
 * (ProjectorFailed), as if its applyBatch had thrown.
 */
async function commitWith(
  tx: SqlClient,
  batch: HeldWrites,
  statements: readonly string[],
  readAhead?: PageReadAhead,
  due?: DueReads,
): Promise<void> {
  const held = batch.take();
  const read = readAhead?.statement();
  const after = [...(read === undefined ? [] : [read]), ...(due?.statements ?? [])];
  try {
    const result = await tx.query([...held.statements, ...statements, 'COMMIT', ...after].join(';\n'));
    held.settle();
    // The due reads are the message's last results (node-postgres answers a text of several statements with one result each).
    const results: readonly SqlResult<Record<string, unknown>>[] = Array.isArray(result) ? result : [result];
    if (due) due.settle(results.slice(-due.count).map((r) => r.rows));
    if (read !== undefined) readAhead?.accept(results.at(-1 - (due?.count ?? 0))?.rows ?? []);
  } catch (error) {
    held.failed(error);
    due?.failed(error);
    if (held.writes > 0 && !isTransientDatabaseError(error) && !isCheckFailed(error))
      throw new ProjectorFailed('a projection’s write failed', { cause: error });
    throw error;
  }
}

const asPosition = (value: string | null | undefined): bigint | undefined => (value == null ? undefined : BigInt(value));
const before = (a: bigint | undefined, b: bigint | undefined): boolean => (a ?? -1n) < (b ?? -1n);

/** What one projection does in a batch transaction. */
interface LanePlan {
  readonly lane: Lane;
  /** Its events of the batch (after its position, of the types it handles). */
  readonly events: readonly RecordedEvent[];
  /** Every event of the batch after its position: a poison event's predecessor is found here. */
  readonly after: readonly RecordedEvent[];
}

/** An array of checked identifiers or numbers (undefined as NULL) as an SQL literal of `type`. */
const arrayOf = (type: string, items: readonly (string | number | bigint | undefined)[]): string =>
  `'{${items.map((item) => (item === undefined ? 'NULL' : String(item))).join(',')}}'::${type}[]`;

/** The statement claiming a batch's projections (applyInOneMessage): values inline, so that it rides in the batch's message. */
function claimStatement(plans: readonly LanePlan[], last: bigint): string {
  const lanes = plans.map((p) => p.lane);
  const names = lanes.map((l) => l.projection.name);
  const keys = lanes.map((l) => l.lockKey);
  const expected = lanes.map((l) => l.persisted);
  const reached = lanes.map(() => last);
  return (
    `SELECT infraledger_claim_projections(${arrayOf('text', names)}, ${arrayOf('bigint', keys)}, ` +
    `${arrayOf('bigint', expected)}, ${arrayOf('bigint', reached)})`
  );
}

/**
 * Whether a projection's tables are complete up to a batch's end once it commits: every running
 * projection of the batch, applied or with nothing to apply (a lane standing by is another process's
 * to complete). Asked only when writers' reads wait, so a batch without any pays nothing for it.
 */
const completeAfter =
  (plans: readonly LanePlan[]) =>
  (projection: string): boolean =>
    plans.some((p) => p.lane.state === 'running' && p.lane.projection.name === projection);

/** What a batch transaction did to one lane. */
interface LaneOutcome {
  readonly lane: Lane;
  readonly reached: bigint | undefined;
  readonly poison?: PoisonEvent;
}

/**
 * Runs every projection of the service from one reader of `$all`. Each batch is read once; the
 * projections it concerns are applied in one transaction that also moves their checkpoints, under
 * each one's advisory lock and after checking its checkpoint is where this process left it, so
 * several replicas can run the hub safely and a batch is applied exactly once. The projections a
 * batch does not concern (every one, for some batches) move in memory at once and write their
 * checkpoints shortly after, in one statement: a busy service writes the few rows its batches touch,
 * not every projection's. A poison event stops only its projection, keeping everything before it.
 */
export class ProjectionHub {
  private readonly lanes: Lane[];
  private readonly byName: Map<string, Lane>;
  private subscription: Subscription | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** Serialises everything that writes checkpoints: batches, idle flushes, checks. */
  private exclusive: Promise<unknown> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private resyncRequested = false;
  /** Writers' reads waiting for the batch that projects their write (./follow-ups.ts). */
  private readonly followUps = new FollowUps();
  /** Projections' writes prepared once per connection (`planOnce`, ./held-writes.ts); PostgreSQL only, as the follow-ups. */
  private readonly preparedWrites = new PreparedTexts('il_write_');

  constructor(
    projections: readonly Projection[],
    private readonly deps: RunnerDeps,
  ) {
    this.lanes = projections.map((p) => new Lane(p));
    this.byName = new Map(this.lanes.map((l) => [l.projection.name, l]));
    if (this.byName.size !== this.lanes.length) throw new TypeError('a projection hub takes each projection once');
    const unsafe = this.lanes.find((l) => !SAFE_NAME.test(l.projection.name));
    if (unsafe) throw new TypeError(`projection name ${unsafe.projection.name} is not a plain identifier`);
  }

  /** Every projection's lane, in the order given. */
  get projections(): readonly ProjectionLane[] {
    return this.lanes;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Registers a writer's read for the batch that brings every one of `projections` to `position`: the
   * batch sends it after its COMMIT and hands the rows over before it wakes the writer. `take()`
   * withdraws it, with the rows if a batch answered it. Only on PostgreSQL (PGlite answers a message
   * of several statements with its last result only); elsewhere undefined.
   */
  follow(read: FollowingRead, position: bigint, projections: readonly string[]): FollowUp | undefined {
    if (this.deps.pool.dialect !== 'postgres') return undefined;
    return this.followUps.add(read, position, projections);
  }

  /**
   * Where a batch's `planOnce` writes are prepared: PostgreSQL only, whose pool hands out one client
   * object per connection (PGlite's checkouts would prepare again on every batch), unless told not to.
   */
  private writesPrepared(): PreparedTexts | undefined {
    return this.deps.pool.dialect === 'postgres' && this.deps.prepareWrites !== false ? this.preparedWrites : undefined;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.checkTimer);
    clearTimeout(this.flushTimer);
    await this.subscription?.stop();
    await this.loop;
    await this.serially(() => this.flushIdle()).catch((error: unknown) =>
      this.deps.log.warn({ err: error }, 'could not write the idle projections’ checkpoints'),
    );
    for (const lane of this.lanes) if (lane.state !== 'failed') lane.state = 'stopped';
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.exclusive.then(work, work);
    this.exclusive = next.catch(() => undefined);
    return next;
  }

  private async run(): Promise<void> {
    const { log } = this.deps;
    const retryMs = this.deps.retryDelayMs ?? 1000;
    this.checkTimer = setInterval(() => void this.serially(() => this.checkRows()).catch(() => undefined), retryMs);
    this.checkTimer.unref();
    while (!this.stopping) {
      try {
        // No subscription while the checkpoints load: a check comparing them with the lanes now would
        // see them "moved" and ask for a resync of a subscription that is already gone.
        this.subscription = undefined;
        this.resyncRequested = false;
        await this.loadCheckpoints();
        const active = this.lanes.filter((l) => l.state !== 'failed');
        // stop() may have run during the await above: subscribing now would leave a subscription nobody stops.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.stopping) return;
        // A check or an idle flush that was under way saw the checkpoints move: load them again.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.resyncRequested) continue;
        if (active.length === 0) {
          await delay(retryMs);
          continue;
        }
        const from = active.reduce<bigint | undefined>((min, l) => (before(l.position, min) ? l.position : min), active[0]?.position);
        this.subscription = this.deps.store.subscribe({
          after: from,
          batchSize: this.deps.batchSize,
          onBatch: (events, readAhead, check) => this.serially(() => this.applyBatch(events, readAhead, check)),
          // This process's appends come as batches at once, confirmed in the batch's transaction.
          ownAppends: true,
        });
        await this.subscription.done;
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.stopping) return;
        if (error instanceof Resync) continue;
        if (error instanceof Standby) {
          log.debug('another process is running some projections; standing by');
        } else {
          log.warn({ err: error }, 'projections interrupted; resuming from their checkpoints');
        }
        await delay(retryMs);
      }
    }
  }

  private async loadCheckpoints(): Promise<void> {
    const names = this.lanes.map((l) => l.projection.name);
    await this.deps.pool.query('INSERT INTO projection_checkpoints (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING', [
      names,
    ]);
    const { rows } = await this.deps.pool.query<CheckpointRow>(
      'SELECT name, position, status, error FROM projection_checkpoints WHERE name = ANY($1::text[])',
      [names],
    );
    for (const row of rows) {
      const lane = this.byName.get(row.name);
      if (!lane) continue;
      lane.persisted = asPosition(row.position);
      // A rebuild may have moved the checkpoint back: the tables now hold exactly that much.
      lane.position = lane.persisted;
      if (row.status === 'failed') {
        if (lane.state !== 'failed')
          this.deps.log.error({ projection: row.name, error: row.error }, 'projection is stopped on a poison event; rebuild it');
        lane.state = 'failed';
      } else {
        lane.state = 'running';
        if (lane.position !== undefined) lane.progress.emit('position', lane.position);
      }
    }
  }

  /** Looks for checkpoints moved by someone else while no batch came (a rebuild, a reset failure). */
  private async checkRows(): Promise<void> {
    if (this.stopping || !this.subscription) return;
    const { rows } = await this.deps.pool.query<CheckpointRow>(
      'SELECT name, position, status, error FROM projection_checkpoints WHERE name = ANY($1::text[])',
      [this.lanes.map((l) => l.projection.name)],
    );
    const moved = rows.some((row) => {
      const lane = this.byName.get(row.name);
      if (!lane) return false;
      if (lane.state === 'failed') return row.status !== 'failed';
      return asPosition(row.position) !== lane.persisted || row.status === 'failed';
    });
    if (moved) this.requestResync();
  }

  /**
   * Ends the current subscription so that the loop reloads the checkpoints. Every request stops the
   * subscription running at that moment (stop is idempotent): a request that only set the flag could
   * leave a newer subscription running with batches ignored, its projections never moving again.
   */
  private requestResync(): void {
    this.resyncRequested = true;
    // Not awaited: the subscription's current batch may be waiting behind whoever calls this.
    void this.subscription?.stop();
  }

  /** What each projection would do with the batch. */
  private plan(events: readonly RecordedEvent[]): LanePlan[] {
    return this.lanes
      .filter((lane) => lane.state === 'running' || lane.state === 'standby')
      .flatMap((lane) => {
        // A lane already past the batch (it adopted a newer checkpoint) has nothing to do with it.
        const after = lane.position === undefined ? events : events.filter((e) => e.position > (lane.position ?? -1n));
        return after.length === 0 ? [] : [{ lane, after, events: after.filter((e) => lane.projection.handles.has(e.type)) }];
      });
  }

  private async applyBatch(events: readonly RecordedEvent[], readAhead?: PageReadAhead, check?: BatchCheck): Promise<void> {
    const last = events.at(-1);
    if (!last || this.stopping || this.resyncRequested) return;
    const plans = this.plan(events);
    // A batch of own appends is confirmed only in a batch's transaction (one message, nothing else).
    if (check) return this.applyUnread(plans, last.position, check, readAhead);
    if (plans.every((p) => p.events.length === 0)) {
      // Nothing to apply: the tables are already complete up to `last`. The checkpoints follow shortly.
      for (const { lane } of plans) lane.advance(last.position);
      this.scheduleFlush();
      return;
    }
    // Projections without events of the batch take no part in its transaction (no lock, no checkpoint
    // row written): their tables are complete up to `last` already, so they move as an idle batch does.
    const busy = plans.filter((p) => p.events.length > 0);
    const complete = completeAfter(plans);
    let outcomes: LaneOutcome[];
    let standby: Lane[];
    let resync: boolean;
    try {
      ({ outcomes, standby, resync } = await this.applyInTransaction(busy, last.position, false, readAhead, complete));
    } catch (error) {
      if (!(error instanceof ProjectorFailed)) throw error;
      // One projector threw: find out which, event by event, keeping everything else of the batch.
      ({ outcomes, standby, resync } = await this.applyInTransaction(busy, last.position, true));
    }
    this.committed(plans, outcomes, last.position);
    for (const lane of standby) lane.state = 'standby';
    if (standby.length > 0) throw new Standby();
    if (resync) throw new Resync();
  }

  /**
   * A batch of this process's own appends, not read back (BatchCheck): applied in one message whose
   * first statement after BEGIN confirms it is the log's page, or not at all. Anything short of that
   * (not the page, a claim or a projector that failed, nothing to apply) throws UnconfirmedBatch, with
   * nothing kept: the subscription reads the page back and delivers it as any other.
   */
  private async applyUnread(plans: readonly LanePlan[], last: bigint, check: BatchCheck, readAhead?: PageReadAhead): Promise<void> {
    const busy = plans.filter((p) => p.events.length > 0);
    if (busy.length === 0) throw new UnconfirmedBatch();
    let outcomes: LaneOutcome[] | undefined;
    try {
      outcomes = await this.applyInOneMessage(busy, last, readAhead, completeAfter(plans), check);
    } catch (error) {
      if (error instanceof ProjectorFailed || isUnconfirmed(error)) throw new UnconfirmedBatch({ cause: error });
      throw error;
    }
    if (!outcomes) throw new UnconfirmedBatch();
    this.committed(plans, outcomes, last);
  }

  /**
   * A batch up to `last` committed with these outcomes: the lanes move (only now is the batch visible
   * to other connections, and read-your-writes waiters trust these values), the projections without
   * events in it too, their checkpoints written shortly after.
   */
  private committed(plans: readonly LanePlan[], outcomes: readonly LaneOutcome[], last: bigint): void {
    for (const outcome of outcomes) {
      outcome.lane.persisted = outcome.reached;
      if (outcome.reached !== undefined) outcome.lane.advance(outcome.reached);
      if (outcome.poison) this.markFailed(outcome.lane, outcome.poison);
    }
    const idle = plans.filter((p) => p.events.length === 0);
    for (const { lane } of idle) lane.advance(last);
    if (idle.length > 0) this.scheduleFlush();
  }

  /**
   * The batch transaction: lock and check every checkpoint at once (sent with BEGIN, which also marks
   * the transaction as never appending, so that it holds no reader of `$all` back), apply each
   * projection's events, move every checkpoint in one statement (sent with COMMIT). `careful` applies
   * each projection under a savepoint, event by event after a failure, to name a poison event;
   * otherwise a projector error aborts the transaction (ProjectorFailed) so the caller can run it
   * carefully. The lock and checkpoint statements carry their values inline (projection names are
   * checked identifiers, keys and positions numbers) so that each rides with BEGIN or COMMIT in one
   * round trip.
   */
  private async applyInTransaction(
    plans: readonly LanePlan[],
    last: bigint,
    careful: boolean,
    readAhead?: PageReadAhead,
    complete?: (projection: string) => boolean,
  ): Promise<{ outcomes: LaneOutcome[]; standby: Lane[]; resync: boolean }> {
    if (!careful) {
      const applied = await this.applyInOneMessage(plans, last, readAhead, complete);
      if (applied) return { outcomes: applied, standby: [], resync: false };
    }
    const tx = await this.deps.pool.connect();
    let broken = false;
    try {
      const keys = plans.map((p) => `(${literal(p.lane.projection.name)}, ${String(p.lane.lockKey)})`).join(', ');
      const begun = await tx.query<CheckpointRow>(
        `${BEGIN_BATCH};
         SELECT c.name, c.position, c.status, c.error FROM projection_checkpoints c JOIN (VALUES ${keys}) AS k(name, key) ON c.name = k.name
          WHERE pg_try_advisory_xact_lock(k.key) FOR UPDATE OF c`,
      );
      const batch = new HeldWrites(tx, [], this.writesPrepared());
      const result = await this.applyLocked(tx, batch, lastResult(begun).rows, plans, last, careful);
      await commitWith(tx, batch, result.statements);
      return result;
    } catch (error) {
      try {
        await tx.query('ROLLBACK');
      } catch {
        broken = true; // the connection is unusable; let the pool discard it
      }
      throw error;
    } finally {
      tx.release(broken);
    }
  }

  private async applyLocked(
    tx: SqlClient,
    batch: BatchClient,
    rows: readonly CheckpointRow[],
    plans: readonly LanePlan[],
    last: bigint,
    careful: boolean,
  ): Promise<{ outcomes: LaneOutcome[]; standby: Lane[]; resync: boolean; statements: string[] }> {
    const locked = new Map(rows.map((r) => [r.name, r]));
    const standby: Lane[] = [];
    let resync = false;
    const ready: LanePlan[] = [];
    for (const plan of plans) {
      const row = locked.get(plan.lane.projection.name);
      if (!row) standby.push(plan.lane);
      else if (row.status === 'failed' || asPosition(row.position) !== plan.lane.persisted) resync = true;
      else ready.push(plan);
    }
    const outcomes: LaneOutcome[] = [];
    const decoded = new Map<RecordedEvent, DecodedEvent>();
    for (const plan of ready) {
      if (careful) {
        outcomes.push(await this.applyCarefully(tx, plan, last));
      } else {
        await this.applyProjection(batch, plan, decoded);
        outcomes.push({ lane: plan.lane, reached: last });
      }
    }
    const statements = checkpointsMoved(outcomes);
    for (const { lane, poison } of outcomes) {
      if (!poison) continue;
      await tx.query(
        "UPDATE projection_checkpoints SET status = 'failed', error = $2, failed_event_id = $3, updated_at = now() WHERE name = $1",
        [lane.projection.name, poison.message, poison.event.eventId],
      );
    }
    return { outcomes, standby, resync, statements };
  }

  /** One projection's events of the batch; a projector's error (not the database's) becomes ProjectorFailed. */
  private async applyProjection(batch: BatchClient, plan: LanePlan, decoded: Map<RecordedEvent, DecodedEvent>): Promise<void> {
    try {
      await plan.lane.projection.applyBatch(
        batch,
        plan.events.map((e) => {
          let d = decoded.get(e);
          if (!d) decoded.set(e, (d = this.deps.codec.decode(e)));
          return d;
        }),
      );
    } catch (error) {
      if (isTransientDatabaseError(error) || isCheckFailed(error)) throw error;
      throw new ProjectorFailed(`projection ${plan.lane.projection.name} failed`, { cause: error });
    }
  }

  /**
   * The batch as one message when its projections only write: BEGIN, the claim (every lock taken,
   * every checkpoint checked to be where this process left it and moved to the batch's end, or
   * CHECK_FAILED raised: `infraledger_claim_projections`, migration 037), the writes and COMMIT; one
   * round trip where the explicit path takes two. A projection that reads sends what is held first,
   * claim included. Undefined when the claim failed: the explicit path then finds out which
   * projections stand by or moved.
   */
  private async applyInOneMessage(
    plans: readonly LanePlan[],
    last: bigint,
    readAhead?: PageReadAhead,
    complete?: (projection: string) => boolean,
    check?: BatchCheck,
  ): Promise<LaneOutcome[] | undefined> {
    const claim = claimStatement(plans, last);
    const tx = await this.deps.pool.connect();
    let broken = false;
    try {
      // The check runs before the claim: the transaction has no id yet, so nothing of its own is in its snapshot's way.
      const begin = check ? [BEGIN_MARKED, check.statement(), claim, BATCH_SETTINGS] : [BEGIN_MARKED, claim, BATCH_SETTINGS];
      const batch = new HeldWrites(tx, begin, this.writesPrepared());
      const decoded = new Map<RecordedEvent, DecodedEvent>();
      for (const plan of plans) await this.applyProjection(batch, plan, decoded);
      const due = complete && this.followUps.due(tx, last, complete);
      await commitWith(tx, batch, [], readAhead, due);
      return plans.map((plan) => ({ lane: plan.lane, reached: last }));
    } catch (error) {
      try {
        await tx.query('ROLLBACK');
      } catch {
        broken = true;
      }
      if (isCheckFailed(error)) return undefined;
      throw error;
    } finally {
      tx.release(broken);
    }
  }

  private async applyCarefully(tx: SqlClient, plan: LanePlan, last: bigint): Promise<LaneOutcome> {
    try {
      await applyEvents(tx, plan.lane.projection, this.deps.codec, plan.after);
      return { lane: plan.lane, reached: last };
    } catch (error) {
      if (!(error instanceof PoisonEvent)) throw error;
      // Keep what came before the poison event: commit it, and stop exactly there.
      return { lane: plan.lane, reached: error.before ?? plan.lane.position, poison: error };
    }
  }

  private markFailed(lane: Lane, error: PoisonEvent): void {
    lane.state = 'failed';
    this.deps.log.error(
      {
        projection: lane.projection.name,
        eventId: error.event.eventId,
        eventType: error.event.type,
        position: String(error.event.position),
        err: error.reason,
      },
      'projection stopped on a poison event',
    );
    lane.progress.emit('failed', error);
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.serially(() => this.flushIdle()).catch((error: unknown) =>
        this.deps.log.warn({ err: error }, 'could not write the idle projections’ checkpoints'),
      );
    }, this.deps.idleFlushMs ?? IDLE_FLUSH_MS);
    this.flushTimer.unref();
  }

  /**
   * Writes the checkpoints that moved without a transaction, in one statement, each only if it is
   * still where this process left it (otherwise someone else moved it: resubscribe from there).
   */
  private async flushIdle(): Promise<void> {
    const moved = this.lanes.filter(
      (l) => (l.state === 'running' || l.state === 'stopped') && l.position !== l.persisted && l.position !== undefined,
    );
    if (moved.length === 0) return;
    const { rows } = await this.deps.pool.query<{ name: string }>(
      `UPDATE projection_checkpoints AS c SET position = v.position, updated_at = now()
         FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS v(name, expected, position)
        WHERE c.name = v.name AND c.position IS NOT DISTINCT FROM v.expected AND c.status = 'running'
        RETURNING c.name`,
      [
        moved.map((l) => l.projection.name),
        moved.map((l) => (l.persisted === undefined ? null : String(l.persisted))),
        moved.map((l) => String(l.position)),
      ],
    );
    const written = new Set(rows.map((r) => r.name));
    for (const lane of moved) if (written.has(lane.projection.name)) lane.persisted = lane.position;
    if (written.size < moved.length && !this.stopping) this.requestResync();
  }
}
