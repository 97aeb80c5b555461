import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { EventStore, RecordedEvent, Subscription } from '../events/store/port.js';
import { auditEntityOf, INTERNAL_EVENT_TYPES } from '../projections/audit-log.js';
import { actorUserId } from '../projections/metadata.js';

/**
 * Live changes, as the audit log shows them, straight from the event store's ordered `$all`
 * subscription: every replica's writes reach every replica's listeners, in position order. A
 * listener that names a position first replays what was committed after it, then goes live, with
 * nothing missed and nothing twice (the catch-up reads `$all` pages; live events that arrive
 * meanwhile wait, and only those after the last replayed position are passed on).
 */

/** One change: an audit entry's identity (docs/contract.md §7), without its changes. */
export interface Change {
  readonly position: bigint;
  readonly entityType: string;
  readonly entityId: string | null;
  readonly action: string;
  readonly at: string;
  readonly actorId: string | null;
}

/** The change an event is, or undefined for write-model bookkeeping (not an audit fact either). */
export function changeOf(event: RecordedEvent): Change | undefined {
  if (INTERNAL_EVENT_TYPES.has(event.type)) return undefined;
  const { entityType, entityId } = auditEntityOf(event.streamId, event.data);
  const metadata = event.metadata as { actorId?: unknown; occurredAt?: unknown };
  const actorId = typeof metadata.actorId === 'string' ? metadata.actorId : null;
  const at = typeof metadata.occurredAt === 'string' ? new Date(metadata.occurredAt).toISOString() : event.recordedAt.toISOString();
  return {
    position: event.position,
    entityType,
    entityId,
    action: event.type,
    at,
    actorId: actorUserId({ actorId } as never)?.toLowerCase() ?? null,
  };
}

/** How much a listener may fall behind, and how large its replay pages are. */
export interface ChangeFeedLimits {
  /** Changes waiting for a listener before it is closed as too slow. */
  readonly maxBuffered: number;
  /** `$all` events read per replay page. */
  readonly pageSize: number;
}

/** A listener's view of the feed: an async iterator of the changes it may see. */
export interface ChangeListener extends AsyncIterableIterator<Change> {
  /** Ends the listener with `error` (delivered to its consumer after what it already has). */
  fail(error: Error): void;
  /** Replaces the filter (the caller's permissions changed). */
  refilter(accept: (change: Change) => boolean): void;
  /** Ends the listener and releases its place. */
  return(): Promise<IteratorResult<Change>>;
}

interface Waiting {
  resolve: (result: IteratorResult<Change>) => void;
  reject: (error: Error) => void;
}

class Listener implements ChangeListener {
  /** Live changes that arrived while the replay runs. */
  private pending: RecordedEvent[] = [];
  private readonly queue: Change[] = [];
  /** Until the replay meets the live batches (an empty `$all` page). */
  private replaying = true;
  private waiting: Waiting | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(
    private readonly feed: ChangeFeed,
    /** The last position passed on (or skipped): only later ones follow. */
    private cursor: bigint,
    private accept: (change: Change) => boolean,
    private readonly limits: ChangeFeedLimits,
    private readonly onEnd: () => void,
  ) {
    this.started = cursor >= 0n;
  }

  /** Whether its starting point is known (it was given one, or the head was read for it). */
  started: boolean;

  /** Sets where the replay starts (before the first `next`). */
  startAfter(position: bigint): void {
    this.cursor = position;
    this.started = true;
  }

  /** Called by the feed with each live batch, in position order. */
  deliver(events: readonly RecordedEvent[]): void {
    if (this.ended) return;
    if (this.replaying) {
      this.pending.push(...events);
      if (this.pending.length > this.limits.maxBuffered) this.overflow();
      return;
    }
    this.enqueue(events);
  }

  private enqueue(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      if (event.position <= this.cursor) continue;
      this.cursor = event.position;
      const change = changeOf(event);
      if (change && this.accept(change)) this.queue.push(change);
    }
    if (this.queue.length > this.limits.maxBuffered) return this.overflow();
    this.wake();
  }

  private overflow(): void {
    this.fail(
      new AppError(
        'RATE_LIMITED',
        `too slow: more than ${this.limits.maxBuffered} changes waited for this subscriber; subscribe again with after set to the last ` +
          `position received`,
      ),
    );
  }

  private wake(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.queue.length > 0) {
      this.waiting = undefined;
      waiting.resolve({ value: this.queue.shift() as Change, done: false });
    } else if (this.failure || this.ended) {
      this.waiting = undefined;
      this.finish();
      if (this.failure) waiting.reject(this.failure);
      else waiting.resolve({ value: undefined, done: true });
    }
  }

  fail(error: Error): void {
    if (this.failure || this.ended) return;
    this.failure = error;
    // What is queued is dropped: the error tells the consumer to resume from its last position.
    this.queue.length = 0;
    this.pending = [];
    this.wake();
  }

  refilter(accept: (change: Change) => boolean): void {
    this.accept = accept;
  }

  /** Replays one page of `$all` after the cursor; the replay ends at an empty page. */
  private async replayPage(): Promise<void> {
    const events = await this.feed.store.readAll({ after: this.cursor, limit: this.limits.pageSize });
    if (events.length > 0) return this.enqueue(events);
    this.replaying = false;
    const pending = this.pending;
    this.pending = [];
    this.enqueue(pending);
  }

  async next(): Promise<IteratorResult<Change>> {
    while (this.queue.length === 0 && this.replaying && !this.failure && !this.ended) await this.replayPage();
    if (this.queue.length > 0) return { value: this.queue.shift() as Change, done: false };
    if (this.failure) {
      this.finish();
      throw this.failure;
    }
    if (this.ended) return { value: undefined, done: true };
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  private finish(): void {
    if (this.ended && !this.failure) return;
    this.ended = true;
    this.onEnd();
  }

  return(): Promise<IteratorResult<Change>> {
    this.ended = true;
    this.queue.length = 0;
    this.pending = [];
    this.onEnd();
    this.wake();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * One `$all` subscription per replica, started with the first listener and stopped with the last;
 * each listener gets every batch and keeps what it may see.
 */
export class ChangeFeed {
  private readonly listeners = new Set<Listener>();
  private subscription: Subscription | undefined;
  private starting: Promise<void> | undefined;

  constructor(
    readonly store: EventStore,
    private readonly log: Pick<Logger, 'warn' | 'error'>,
    private readonly limits: ChangeFeedLimits = { maxBuffered: 1000, pageSize: 500 },
  ) {}

  /** How many listeners are open (for tests and metrics). */
  get size(): number {
    return this.listeners.size;
  }

  /** How many open listeners know their starting point: a change committed from now on reaches each. */
  get listening(): number {
    let started = 0;
    for (const listener of this.listeners) if (listener.started) started += 1;
    return started;
  }

  /**
   * Emits 'position' with the last position of each batch once every listener has been handed it,
   * and 'listeners' when a listener has its starting point or has gone (`listening`, `size`).
   */
  readonly progress = new EventEmitter();

  private async start(): Promise<void> {
    const head = await this.store.headPosition();
    const subscription = this.store.subscribe({
      after: head,
      onBatch: (events) => {
        for (const listener of this.listeners) listener.deliver(events);
        const last = events.at(-1);
        if (last) this.progress.emit('position', last.position);
        return Promise.resolve();
      },
    });
    this.subscription = subscription;
    subscription.done.catch((error: unknown) => {
      // The store went away: every listener ends with the reason; the next one starts afresh.
      this.log.error({ err: error }, 'change feed subscription ended');
      this.subscription = undefined;
      for (const listener of this.listeners)
        listener.fail(new AppError('UNAVAILABLE', 'the change feed stopped; subscribe again with after set to the last position received'));
    });
  }

  /**
   * A listener of the changes `accept` keeps: after `after` (replayed, then live), or from now on.
   * It must be ended (`return`, or consumed to its end) to release its place.
   */
  async listen(after: bigint | undefined, accept: (change: Change) => boolean): Promise<ChangeListener> {
    if (!this.subscription) {
      this.starting ??= this.start().finally(() => {
        this.starting = undefined;
      });
      await this.starting;
    }
    // Registered before its starting point is read: live batches wait in it while it replays what
    // was committed after that point, so nothing in between is missed. From now on is a replay
    // from the head as read after registering.
    const listener: Listener = new Listener(this, after ?? -1n, accept, this.limits, () => {
      if (!this.listeners.delete(listener)) return;
      if (this.listeners.size === 0) void this.stop();
      this.progress.emit('listeners');
    });
    this.listeners.add(listener);
    if (after === undefined) listener.startAfter((await this.store.headPosition()) ?? -1n);
    this.progress.emit('listeners');
    return listener;
  }

  private async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }

  /** Ends every listener and the subscription (on shutdown). */
  async close(): Promise<void> {
    for (const listener of this.listeners) void listener.return();
    this.listeners.clear();
    await this.stop();
  }
}
