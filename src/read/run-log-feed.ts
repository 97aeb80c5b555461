import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import { isOpenRun } from '../model/run.js';
import type { SqlPool } from '../storage/pool.js';
import { readRunLog, RUN_LOG_CHANNEL, type RunLogChunk } from './run-logs.js';

/**
 * Live tails of run logs, for the GraphQL subscription `runLog(runId, after)`. A tail reads the
 * chunks after its cursor from the table, then waits for a wake-up: an append on this replica, a
 * NOTIFY from another one (PostgreSQL; one LISTEN per replica while any tail is open), or the poll
 * interval, which covers a lost notification. It ends once the run has ended and every chunk was
 * delivered. Reading from the table each time means a slow consumer never buffers more than a page.
 */

/** How a tail reads and waits. */
export interface RunLogFeedOptions {
  /** The longest wait without a wake-up before looking again. */
  readonly pollIntervalMs: number;
  /** Chunks read per page. */
  readonly pageChunks: number;
  /** About how many bytes of content one page holds (at least one chunk). */
  readonly pageBytes: number;
}

/** A tail: an async iterator of chunks, which its consumer may end (`return`) or fail. */
export interface RunLogTail extends AsyncIterableIterator<RunLogChunk> {
  /** Ends the tail with `error` (delivered to its consumer instead of the next chunk). */
  fail(error: Error): void;
  return(): Promise<IteratorResult<RunLogChunk>>;
}

/** Every tail wakes on this event (a LISTEN connection came back: notifications may have been lost). */
const EVERY_RUN = '*';

class Tail implements RunLogTail {
  private readonly queue: RunLogChunk[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly onWake = (): void => {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  };

  constructor(
    private readonly feed: RunLogFeed,
    private readonly runId: string,
    private cursor: number,
    /** The run's status now (undefined when it is gone). */
    private readonly statusOf: () => Promise<string | undefined>,
    private readonly onEnd: () => void,
  ) {
    feed.wakeups.on(runId, this.onWake);
    feed.wakeups.on(EVERY_RUN, this.onWake);
  }

  /** Reads the next page into the queue; false when there was nothing new. */
  private async readPage(): Promise<boolean> {
    const { pageChunks, pageBytes } = this.feed.options;
    const page = await readRunLog(this.feed.pool, this.runId, this.cursor, pageChunks, pageBytes);
    const last = page.chunks.at(-1);
    if (!last) return false;
    this.queue.push(...page.chunks);
    this.cursor = last.seq;
    return true;
  }

  private waitForWake(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(this.onWake, this.feed.options.pollIntervalMs);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async next(): Promise<IteratorResult<RunLogChunk>> {
    for (;;) {
      if (this.failure) {
        const failure = this.failure;
        this.finish();
        throw failure;
      }
      const chunk = this.queue.shift();
      if (chunk) return { value: chunk, done: false };
      if (this.ended) return { value: undefined, done: true };
      if (await this.readPage()) continue;
      const status = await this.statusOf();
      if (status === undefined || !isOpenRun(status)) {
        // The run ended: whatever was appended before that is delivered, then the tail completes.
        if (await this.readPage()) continue;
        this.finish();
        return { value: undefined, done: true };
      }
      await this.waitForWake();
    }
  }

  fail(error: Error): void {
    if (this.ended || this.failure) return;
    this.failure = error;
    this.queue.length = 0;
    this.onWake();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.feed.wakeups.off(this.runId, this.onWake);
    this.feed.wakeups.off(EVERY_RUN, this.onWake);
    this.onEnd();
  }

  return(): Promise<IteratorResult<RunLogChunk>> {
    this.queue.length = 0;
    this.finish();
    this.onWake();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** The replica's run log tails and what wakes them. */
export class RunLogFeed {
  /** Wake-ups by run id (and {@link EVERY_RUN}). */
  readonly wakeups = new EventEmitter();
  private open = 0;
  private listening: Promise<() => Promise<void>> | undefined;

  constructor(
    readonly pool: SqlPool,
    private readonly log: Pick<Logger, 'warn'>,
    readonly options: RunLogFeedOptions,
  ) {
    this.wakeups.setMaxListeners(0);
  }

  /** How many tails are open (for tests). */
  get size(): number {
    return this.open;
  }

  /** An append to `runId` committed on this replica. */
  appended(runId: string): void {
    this.wakeups.emit(runId);
  }

  /** A tail of `runId` after sequence number `after` (0: from the start); `statusOf` reads the run's status. */
  tail(runId: string, after: number, statusOf: () => Promise<string | undefined>): RunLogTail {
    this.open++;
    this.listening ??= this.pool
      .listen(RUN_LOG_CHANNEL, (payload) => this.wakeups.emit(payload === '' ? EVERY_RUN : payload))
      .catch((error: unknown) => {
        this.log.warn({ err: error }, 'LISTEN for run logs failed; live tails fall back to polling');
        return () => Promise.resolve();
      });
    return new Tail(this, runId, after, statusOf, () => {
      this.open--;
      if (this.open === 0) void this.stopListening();
    });
  }

  private async stopListening(): Promise<void> {
    const listening = this.listening;
    this.listening = undefined;
    if (listening) await (await listening)();
  }

  /** Stops listening (on shutdown); open tails end at their next wake-up or poll. */
  async close(): Promise<void> {
    this.wakeups.emit(EVERY_RUN);
    await this.stopListening();
  }
}
