import type { EventEmitter } from 'node:events';
import type { ReadAllOptions, RecordedEvent, SubscribeOptions, Subscription } from './port.js';

/** A polling subscription's reader and wake-ups. */
export interface PollingSubscriptionOptions extends SubscribeOptions {
  readonly readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>;
  /** Emits 'append' whenever new events may be visible; polling covers any missed wake-up. */
  readonly wakeUps: EventEmitter;
  readonly pollIntervalMs: number;
}

/**
 * Catch-up then live delivery built on a gap-free `readAll`: read a batch after the last delivered
 * position, hand it over, repeat; when caught up, wait for a wake-up or the poll interval.
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

  const waitForWakeUp = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), options.pollIntervalMs);
      const finish = (): void => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = finish;
      if (pending || stopped) finish();
    });

  const loop = async (): Promise<void> => {
    try {
      while (!stopped) {
        pending = false;
        const events = await options.readAll({ after, limit: batchSize });
        // stop() may have been called while reading (TypeScript cannot see that across the await).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (stopped) break;
        if (events.length === 0) {
          await waitForWakeUp();
          continue;
        }
        await options.onBatch(events);
        after = events[events.length - 1]?.position;
      }
    } finally {
      options.wakeUps.off('append', onAppend);
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
