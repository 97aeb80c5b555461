import { setTimeout as delay } from 'node:timers/promises';
import { AppError } from '../errors.js';
import type { DomainEvent, EventCodec } from '../events/codec.js';
import type { CommandContext } from '../events/define.js';
import {
  revisionMatches,
  StreamRevisionConflictError,
  type AppendCondition,
  type EventStore,
  type NewEvent,
  type StreamWrite,
} from '../events/store/port.js';
import type { Logger } from '../log.js';
import { inSpan } from '../spans.js';
import { fold, type Aggregate, type Ref, type UniqueKey } from './decider.js';
import { deletionGuard, mergeWrites, planReferences, referenceStreamId } from './references.js';
import { referenceTargets } from './kinds.js';
import { planReservations, uniqueStreamId } from './unique.js';

/** What commands run against: the event store, the codec, ids and the log. */
export interface CommandDeps {
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly newId: () => string;
  readonly log?: Logger;
  /** Attempts on a revision conflict before giving up with a 409 (default 10). */
  readonly maxAttempts?: number;
}

/** An aggregate's state folded from its stream, with the stream's revision. */
export interface Loaded<S> {
  readonly state: S;
  /** Revision of the stream's last event; undefined when the stream does not exist. */
  readonly revision: bigint | undefined;
}

/** What a command did: the new state and revision, its events and their global position. */
export interface CommandResult<S, E> {
  readonly state: S;
  readonly revision: bigint | undefined;
  readonly events: readonly E[];
  /** Global position of the append; undefined when the command changed nothing. */
  readonly position: bigint | undefined;
}

/** How a command runs: its context, an optional expected revision and guards. */
export interface ExecuteOptions extends CommandContext {
  /** From If-Match: the revision the client last saw. A mismatch is a 412. */
  readonly expectedRevision?: bigint;
  /**
   * Extra facts a rule depends on, checked on every attempt: returns zero-event writes asserting
   * other streams are still at the revisions the check saw (or throws to refuse). They ride in the
   * same atomic append, so the rule holds under concurrency.
   */
  readonly guards?: () => Promise<readonly StreamWrite[]>;
  /**
   * A fact the append must find true in its own transaction (the caller's session unchanged, for a
   * caller not yet confirmed: src/edge/recalled-writes.ts), or write nothing and fail with
   * AppendConditionError. Only where the store checks conditions (`checksConditions`).
   */
  readonly condition?: AppendCondition;
}

/** How a command runs when the caller holds the aggregate's state already (a chain of commands on one stream). */
export interface ExecuteKnownOptions<S> extends ExecuteOptions {
  /**
   * The state and revision the caller's previous command on this aggregate returned. The first
   * attempt decides on it instead of reading the stream; the append's expected revision still checks
   * it, so if anything else wrote meanwhile the conflict makes the next attempt read the stream.
   */
  readonly known?: Loaded<S>;
}

/**
 * A command whose content depends on other streams (facts about related entities): built afresh on
 * every attempt, with zero-event writes asserting those streams are unchanged at append time.
 */
export type PreparedCommand<C> = () => Promise<{ readonly command: C; readonly guards: readonly StreamWrite[] }>;

/**
 * The state of an aggregate whose id was generated for this command: its stream cannot exist yet, so
 * the create need not read it (`known`; a collision would still fail the append's `no_stream` check).
 */
export const unwritten = <S>(aggregate: Pick<Aggregate<never, DomainEvent, S>, 'initialState'>): Loaded<S> => ({
  state: aggregate.initialState,
  revision: undefined,
});

/** Reads an aggregate's stream and folds it into state. */
export async function loadAggregate<C, E extends DomainEvent, S>(
  deps: CommandDeps,
  aggregate: Aggregate<C, E, S>,
  id: string,
): Promise<Loaded<S>> {
  const recorded = await deps.store.readStream(aggregate.streamId(id));
  const events = recorded.map((r) => deps.codec.decode<E>(r).event);
  return { state: fold(aggregate, events), revision: recorded.at(-1)?.streamRevision };
}

/**
 * The one way commands run: load → pure decide → append with the expected revision, together with
 * the reservation streams of unique values. Only a revision conflict is retried (the decision is
 * pure, so deciding again on fresh state is safe); every other error goes straight to the caller.
 */
export async function executeCommand<C, E extends DomainEvent, S>(
  deps: CommandDeps,
  aggregate: Aggregate<C, E, S>,
  id: string,
  command: C | PreparedCommand<C>,
  options: ExecuteKnownOptions<S>,
): Promise<CommandResult<S, E>> {
  const maxAttempts = deps.maxAttempts ?? 10;
  const streamId = aggregate.streamId(id);
  if (options.condition && !deps.store.checksConditions)
    throw new TypeError(`the ${deps.store.kind} store cannot check an append condition`);
  // A write's trace: decide (load and decide) → append (plans and the append) → the edge's wait for read models.
  const spanAttributes = { 'infraledger.stream': streamId };
  for (let attempt = 1; ; attempt++) {
    // Only an append checks a known state: a refusal or a no-op decided on it is decided again on the stream.
    const known = attempt === 1 ? options.known : undefined;
    const onKnown = known !== undefined;
    const decided = await inSpan(
      'decide',
      async () => {
        const loaded = known ?? (await loadAggregate(deps, aggregate, id));
        if (options.expectedRevision !== undefined && options.expectedRevision !== loaded.revision) {
          throw new AppError(
            'PRECONDITION_FAILED',
            `revision ${revisionLabel(options.expectedRevision)} is stale: the ${aggregate.kind} is at revision ` +
              revisionLabel(loaded.revision),
            {
              details: { revision: loaded.revision === undefined ? null : Number(loaded.revision) + 1 },
            },
          );
        }
        const made = typeof command === 'function' ? await (command as PreparedCommand<C>)() : { command, guards: [] };
        return { ...loaded, prepared: made, events: aggregate.decide(made.command, loaded.state) };
      },
      spanAttributes,
    ).catch((error: unknown) => {
      if (onKnown) return undefined;
      throw error;
    });
    if (decided === undefined || (onKnown && decided.events.length === 0)) continue;
    const { state, revision, prepared, events } = decided;
    if (events.length === 0) return { state, revision, events, position: undefined };
    const next = fold(aggregate, events, state);
    const encode = (event: DomainEvent): NewEvent =>
      deps.codec.encode(
        event,
        {
          actorId: options.actorId,
          correlationId: options.correlationId,
          causationId: options.causationId,
          occurredAt: options.now.toISOString(),
        },
        deps.newId(),
      );
    try {
      // undefined: a value assumed free on the first attempt was not (see below); decide again.
      const position = await inSpan(
        'append',
        async (): Promise<bigint | undefined> => {
          const deleting = aggregate.isDeleted(next) && !aggregate.isDeleted(state);
          const keys = { held: aggregate.uniqueKeys(state), wanted: aggregate.uniqueKeys(next) };
          const relations = { had: aggregate.references(state), wanted: aggregate.references(next) };
          const facts = factStreams(aggregate.kind, keys, relations, id, deleting);
          // First attempt, when the only facts are reservations of values the command newly takes (a
          // create, mostly): assume those streams absent instead of reading them, one round trip fewer.
          // The reservations then expect `no_stream`, which the atomic append checks: the same fact the
          // read would have given. A value taken, or released earlier (its stream exists), fails that
          // check, and the next attempt reads as usual (409 naming the field, or the right revision).
          // Only with atomic appends: the ordered path would write and undo the other reservations.
          const assumeFree =
            attempt === 1 && attempt < maxAttempts && deps.store.atomicMultiStream && facts.others.length === 0 ? facts.reserving : [];
          // Otherwise every stream the rules below read, in one round trip.
          const store =
            assumeFree.length > 0
              ? withoutStreams(deps.store, assumeFree)
              : await prefetched(deps.store, [...facts.reserving, ...facts.others]);
          const unique = await planReservations(store, deps.codec, streamId, keys.held, keys.wanted, encode);
          const refs = await planReferences(store, deps.codec, { kind: aggregate.kind, id }, relations.had, relations.wanted, encode);
          const guards = [...refs.guards, ...prepared.guards, ...(options.guards ? await options.guards() : [])];
          if (deleting) guards.push(await deletionGuard(store, deps.codec, aggregate.kind, id));
          const own: StreamWrite = { streamId, expectedRevision: revision ?? 'no_stream', events: events.map(encode) };
          if (!deps.store.atomicMultiStream) {
            return await appendInOrder(deps, {
              own,
              compensable: [...unique.reserve, ...refs.add],
              checks: guards,
              after: [...refs.remove, ...unique.release],
            });
          }
          try {
            return (
              await deps.store.appendMany(
                mergeWrites([...unique.reserve, ...refs.add, ...guards, own, ...refs.remove, ...unique.release]),
                options.condition,
              )
            ).position;
          } catch (error) {
            // The assumption failed, not a concurrent change: no failed span, no back-off, not logged as a conflict.
            if (error instanceof StreamRevisionConflictError && assumeFree.includes(error.streamId)) return undefined;
            throw error;
          }
        },
        spanAttributes,
      );
      if (position === undefined) {
        deps.log?.debug({ streamId, attempt }, 'a unique value assumed free has a reservation stream; reading it');
        continue;
      }
      const written = (revision ?? -1n) + BigInt(events.length);
      return { state: next, revision: written, events, position };
    } catch (error) {
      if (!(error instanceof StreamRevisionConflictError) || attempt >= maxAttempts) {
        if (error instanceof StreamRevisionConflictError) {
          throw new AppError('CONCURRENT_MODIFICATION', `the ${aggregate.kind} is being modified concurrently; try again`, {
            cause: error,
          });
        }
        throw error;
      }
      deps.log?.debug({ streamId, attempt, conflictOn: error.streamId }, 'revision conflict, deciding again');
      await delay(Math.floor(Math.random() * 5 * attempt));
    }
  }
}

/**
 * The streams a command's rules read after deciding: the reservations it takes (`reserving`), and
 * (`others`) those it gives back, the entities it newly references, and its own reference stream when
 * it deletes.
 */
function factStreams(
  kind: string,
  keys: { readonly held: readonly UniqueKey[]; readonly wanted: readonly UniqueKey[] },
  relations: { readonly had: readonly Ref[]; readonly wanted: readonly Ref[] },
  id: string,
  deleting: boolean,
): { reserving: string[]; others: string[] } {
  const held = new Set(keys.held.map((k) => k.key));
  const wanted = new Set(keys.wanted.map((k) => k.key));
  const reserving = [...wanted].filter((k) => !held.has(k)).map(uniqueStreamId);
  const released = [...held].filter((k) => !wanted.has(k)).map(uniqueStreamId);
  const had = new Set(relations.had.map((r) => `${r.kind}:${r.id}`));
  const targets = relations.wanted
    .filter((r) => !had.has(`${r.kind}:${r.id}`))
    .flatMap((r) => {
      const target = referenceTargets.get(r.kind);
      return target ? [target.aggregate.streamId(r.id)] : [];
    });
  return { reserving, others: [...released, ...targets, ...(deleting ? [referenceStreamId(kind, id)] : [])] };
}

/** The store, answering `streamIds` as absent without reading them. */
function withoutStreams(store: EventStore, streamIds: readonly string[]): EventStore {
  const absent = new Set(streamIds);
  return { ...store, readStream: (streamId) => (absent.has(streamId) ? Promise.resolve([]) : store.readStream(streamId)) };
}

/** The store, with `streamIds` read in one round trip up front and answered from memory after. */
async function prefetched(store: EventStore, streamIds: readonly string[]): Promise<EventStore> {
  if (streamIds.length < 2) return store;
  const streams = await store.readStreams(streamIds);
  return { ...store, readStream: (streamId) => Promise.resolve(streams.get(streamId) ?? store.readStream(streamId)) };
}

interface OrderedWrites {
  readonly own: StreamWrite;
  /** Written first; each undone by its `undo` event if the aggregate's own append fails. */
  readonly compensable: readonly (StreamWrite & { readonly undo: NewEvent })[];
  /** Zero-event revision assertions. */
  readonly checks: readonly StreamWrite[];
  /** Written once the aggregate's events are stored. */
  readonly after: readonly StreamWrite[];
}

/**
 * For stores without multi-stream transactions (EventStoreDB): reservations and reference records
 * first, then the revision checks and the aggregate's own events, then releases. If the aggregate's
 * append fails, what was written first is undone again, so a failed create does not keep its name.
 * Without one transaction the checks only narrow the race window; docs/operations.md says so.
 */
async function appendInOrder(deps: CommandDeps, writes: OrderedWrites): Promise<bigint> {
  const done: { write: OrderedWrites['compensable'][number]; revision: bigint }[] = [];
  let position: bigint;
  try {
    for (const write of writes.compensable) {
      const result = await deps.store.append(write.streamId, write.events, { expectedRevision: write.expectedRevision });
      done.push({ write, revision: result.revisions.get(write.streamId) ?? 0n });
    }
    for (const check of writes.checks) {
      const head = (await deps.store.readStream(check.streamId)).at(-1)?.streamRevision;
      if (!revisionMatches(check.expectedRevision, head))
        throw new StreamRevisionConflictError(check.streamId, check.expectedRevision, head ?? 'no_stream');
    }
    position = (await deps.store.append(writes.own.streamId, writes.own.events, { expectedRevision: writes.own.expectedRevision }))
      .position;
  } catch (error) {
    for (const { write, revision } of done) {
      await deps.store
        // Reference records are keyed by referrer and appended with 'any'; reservations undo exactly.
        .append(write.streamId, [write.undo], { expectedRevision: write.expectedRevision === 'any' ? 'any' : revision })
        .catch((undoError: unknown) =>
          deps.log?.error({ err: undoError, streamId: write.streamId }, 'could not undo a write after a failed command'),
        );
    }
    throw error;
  }
  // The aggregate's events are stored: a release that fails now only keeps an old value taken.
  for (const write of writes.after) {
    try {
      position = (await deps.store.append(write.streamId, write.events, { expectedRevision: write.expectedRevision })).position;
    } catch (error) {
      deps.log?.error({ err: error, streamId: write.streamId }, 'could not release a unique value or reference');
    }
  }
  return position;
}

/** Clients see 1-based revisions (the number of events in the stream). */
const revisionLabel = (revision: bigint | undefined): string => (revision === undefined ? '0' : String(revision + 1n));
