import type { Metrics } from '../../metrics.js';
import { StreamRevisionConflictError, type AppendCondition, type EventStore, type NewEvent, type StreamWrite } from './port.js';

/** Sees every event an append stored (after the append succeeded). */
export type AppendObserver = (events: readonly NewEvent[]) => void;

/**
 * The event store with its appends counted: by outcome, events written, revision conflicts. Reads
 * and subscriptions pass through untouched. `observe` sees the events of each successful append (the
 * sign-in counter reads the sign-in facts there, whichever flow wrote them).
 */
export function instrumentEventStore(
  store: EventStore,
  metrics: Pick<Metrics, 'eventStoreAppends' | 'eventStoreAppendedEvents' | 'eventStoreRevisionConflicts'>,
  observe?: AppendObserver,
): EventStore {
  const counted = async <T>(events: readonly NewEvent[], append: () => Promise<T>): Promise<T> => {
    try {
      const result = await append();
      metrics.eventStoreAppends.inc({ outcome: 'ok' });
      metrics.eventStoreAppendedEvents.inc(events.length);
      observe?.(events);
      return result;
    } catch (error) {
      const conflict = error instanceof StreamRevisionConflictError;
      metrics.eventStoreAppends.inc({ outcome: conflict ? 'conflict' : 'error' });
      if (conflict) metrics.eventStoreRevisionConflicts.inc();
      throw error;
    }
  };
  return {
    kind: store.kind,
    atomicMultiStream: store.atomicMultiStream,
    append: (streamId, events, options) => counted(events, () => store.append(streamId, events, options)),
    checksConditions: store.checksConditions,
    appendMany: (writes: readonly StreamWrite[], condition?: AppendCondition) =>
      counted(
        writes.flatMap((w) => w.events),
        () => store.appendMany(writes, condition),
      ),
    readStream: (streamId) => store.readStream(streamId),
    readStreams: (streamIds) => store.readStreams(streamIds),
    readAll: (options) => store.readAll(options),
    readAllEach: (options, onEvent) => store.readAllEach(options, onEvent),
    headPosition: () => store.headPosition(),
    lastPosition: () => store.lastPosition(),
    countAfter: (after, limit, types) => store.countAfter(after, limit, types),
    subscribe: (options) => store.subscribe(options),
    truncate: (streamId, beforeRevision) => store.truncate(streamId, beforeRevision),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
