import type { EventEmitter } from 'node:events';
import {
  UnconfirmedBatch,
  type PageReadAhead,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.js';

/** A page of `$all`, and whether committed events wait beyond it for older transactions to end. */
export interface ReadPage {
  readonly events: RecordedEvent[];
  /**
   * True when events after the page are committed but not yet readable (an older transaction is
   * still open): they become readable without any further append, so the reader must look again
   * soon instead of waiting for a wake-up.
   */
  readonly held: boolean;
}

/** What a store passes with 'append' when another process appended (it has no events to offer). */
export const ELSEWHERE = 'elsewhere';

/** A polling subscription's reader and wake-ups. */
export interface PollingSubscriptionOptions extends SubscribeOptions {
  readonly readPage: (options: ReadAllOptions) => Promise<ReadPage>;
  /**
   * Emits 'append' whenever new events may be visible (with ELSEWHERE when another process appended);
   * polling covers any missed wake-up. Before its own 'append', a store that offers its own appends
   * (`confirmStatement`) emits 'committed' with the events that append committed, as the log holds them.
   */
  readonly wakeUps: EventEmitter;
  /** The statement confirming a batch of own appends after `after` (BatchCheck): where given, `ownAppends` is honoured. */
  readonly confirmStatement?: (after: bigint | undefined, last: bigint, count: number) => string;
  readonly pollIntervalMs: number;
  /** The page read as a statement a consumer can send itself (PageReadAhead), and its rows as a page. */
  readonly readAhead?: {
    statement(after: bigint | undefined, limit: number): string;
    page(rows: readonly unknown[]): ReadPage;
  };
}

/** The first and the longest wait before looking again at events held back by an open transaction. */
const HELD_RETRY_MIN_MS = 1;
const HELD_RETRY_MAX_MS = 50;

/** How many batches of own appends a subscription keeps at most; beyond, it reads them back. */
const OWN_BATCHES_KEPT = 4;

/**
 * Catch-up then live delivery built on a gap-free page read: read a batch after the last delivered
 * position, hand it over (reading the next one meanwhile when the batch was full), repeat; when
 * caught up (an empty page, or one short of full), wait for a wake-up or the poll interval. Events
 * held back by an older open transaction are looked for again after a short, growing delay. Where
 * the store can (`readAhead`), the consumer is offered the next read to send with its own statements
 * (PageReadAhead); the page it hands back is delivered as if read here.
 */
export function pollingSubscription(options: PollingSubscriptionOptions): Subscription {
  const batchSize = options.batchSize ?? 500;
  let after = options.after;
  let stopped = false;
  let wake: (() => void) | undefined;
  let pending = false; // a wake-up that arrived while a batch was being read or delivered
  const onAppend = (): void => {
    pending = true;
    wake?.();
  };
  options.wakeUps.on('append', onAppend);

  // This process's own appends, offered as batches before they are read back (port.ts BatchCheck).
  // Only while `trusted`: the last page read was everything readable (short of full, nothing held
  // back), no other process has appended since, and every own append since is here. Otherwise such a
  // batch would most likely fail its check, a wasted round trip: the pages are read as before.
  const confirmStatement = options.ownAppends ? options.confirmStatement : undefined;
  let own: RecordedEvent[] = [];
  let trusted = false;
  const onCommitted = (events: readonly RecordedEvent[]): void => {
    own.push(...events);
    if (own.length > OWN_BATCHES_KEPT * batchSize) {
      own = [];
      trusted = false;
    }
  };
  const onElsewhere = (from?: unknown): void => {
    if (from === ELSEWHERE) trusted = false;
  };
  if (confirmStatement) {
    options.wakeUps.on('committed', onCommitted);
    options.wakeUps.on('append', onElsewhere);
  }
  /** A page read, or read ahead, is delivered: it says whether own appends can be trusted from here. */
  const sawPage = ({ events, held }: ReadPage): void => {
    if (held) trusted = false;
    else if (events.length < batchSize) trusted = true;
  };

  const waitForWakeUp = (ms: number, wakeable: boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), ms);
      const finish = (): void => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = finish;
      if ((wakeable && pending) || stopped) finish();
    });

  /** Starts reading the page after `from`; a wake-up from now on means events this read may not see. */
  const read = (from: bigint | undefined): Promise<ReadPage> => {
    pending = false;
    const page = options.readPage({ after: from, limit: batchSize });
    // Awaited by the next turn of the loop, unless the loop ends first (stopped, or onBatch failed).
    page.catch(() => undefined);
    return page;
  };

  /** The read of the page after `last` offered to the consumer, and what became of it. */
  const readAheadAfter = (last: bigint | undefined): { offer: PageReadAhead; asked: boolean; page?: ReadPage } | undefined => {
    const { readAhead } = options;
    if (!readAhead) return undefined;
    const ahead: { offer: PageReadAhead; asked: boolean; page?: ReadPage } = {
      asked: false,
      offer: {
        statement: () => {
          ahead.asked = true;
          pending = false;
          return readAhead.statement(last, batchSize);
        },
        accept: (rows) => {
          ahead.page = readAhead.page(rows);
        },
      },
    };
    return ahead;
  };

  /**
   * Delivers the own appends after `after` as a batch with its check, when trusted: false when there
   * was none or the consumer did not confirm it (the page is then read back).
   */
  const deliverOwn = async (): Promise<boolean> => {
    if (!confirmStatement) return false;
    const from = after;
    if (from !== undefined && own.length > 0 && (own[0]?.position ?? 0n) <= from) own = own.filter((e) => e.position > from);
    if (!trusted || own.length === 0) return false;
    const events = own.slice(0, batchSize);
    const last = (events.at(-1) as RecordedEvent).position;
    // The wake-ups of these appends are answered by this batch; one arriving from now on is news.
    if (events.length === own.length) pending = false;
    // No read ahead is offered: what it would find is, while trusted, own appends committed during
    // the batch, which arrive here anyway ('committed'); reading them back cost the log's rows in
    // PostgreSQL and their parsing here, for events already held. Another process's append ends the
    // trust by its wake-up (ELSEWHERE), and the page is read then.
    try {
      await options.onBatch(events, undefined, { statement: () => confirmStatement(from, last, events.length) });
    } catch (error) {
      if (!(error instanceof UnconfirmedBatch)) throw error;
      trusted = false;
      return false;
    }
    after = last;
    own = own.slice(events.length);
    return true;
  };

  const loop = async (): Promise<void> => {
    let heldRetryMs = HELD_RETRY_MIN_MS;
    let next: Promise<ReadPage> | undefined;
    try {
      while (!stopped) {
        if (!next) {
          const delivered = await deliverOwn();
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          if (stopped) break;
          if (delivered) {
            // As after a page short of full: the batch was everything up to its end, so the next
            // batch waits for news (a wake-up that came meanwhile ends the wait at once).
            if (own.length === 0) await waitForWakeUp(options.pollIntervalMs, true);
            continue;
          }
        }
        const page = await (next ?? read(after));
        const { events, held } = page;
        next = undefined;
        sawPage(page);
        // stop() may have been called while reading (TypeScript cannot see that across the await).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (stopped) break;
        if (events.length === 0) {
          if (held) {
            // Not a wake-up's business: the events are there, an older transaction has to end first.
            await waitForWakeUp(heldRetryMs, false);
            heldRetryMs = Math.min(heldRetryMs * 2, HELD_RETRY_MAX_MS);
          } else {
            await waitForWakeUp(options.pollIntervalMs, true);
          }
          continue;
        }
        heldRetryMs = HELD_RETRY_MIN_MS;
        const last = events[events.length - 1]?.position;
        // A full page means more is waiting (catching up): read the next page while this one is
        // handed over, so the reader and the consumer's writes overlap instead of taking turns.
        if (events.length >= batchSize) next = read(last);
        const ahead = next ? undefined : readAheadAfter(last);
        await options.onBatch(events, ahead?.offer);
        after = last;
        if (ahead?.page) next = Promise.resolve(ahead.page);
        // A page short of full with nothing held back was everything readable: the next read waits for
        // news (a wake-up that came meanwhile ends the wait at once) instead of finding an empty page.
        // A read ahead that was started but never answered leaves no news to wait for: read at once.
        else if (!next && !held && !ahead?.asked) await waitForWakeUp(options.pollIntervalMs, true);
      }
    } finally {
      options.wakeUps.off('append', onAppend);
      options.wakeUps.off('committed', onCommitted);
      options.wakeUps.off('append', onElsewhere);
    }
  };

  const done = loop();
  // Whoever cares awaits `done`; nobody awaiting it must not turn into an unhandled rejection.
  done.catch(() => undefined);
  return {
    done,
    async stop() {
      stopped = true;
      wake?.();
      await done.catch(() => undefined);
    },
  };
}
