import type { FastifyRequest } from 'fastify';
import type { Aggregate } from '../../commands/decider.js';
import { executeCommand, type CommandDeps, type Loaded, type PreparedCommand } from '../../commands/handler.js';
import type { DomainEvent } from '../../events/codec.js';
import type { ReadRows } from '../../projections/follow-ups.js';
import type { WaitRead } from '../../projections/waiter.js';
import { nameReferrers } from '../../read/referrers.js';
import type { Services } from '../../services.js';
import { commandContext } from '../context.js';
import { confirmWriter } from '../recalled-writes.js';

/**
 * One write as an edge hands it over: the request (who is calling, the correlation id, the client's
 * address and logger) and the revision the client expects (REST's If-Match, GraphQL's `revision`).
 * REST and GraphQL run every write through the operations of ./registry.ts with one of these, so
 * validation, permissions, uniqueness, audit and read-your-writes are the same on both.
 */
export interface WriteCall {
  readonly request: FastifyRequest;
  /** The stream revision the client expects (0-based, as streams count), if any. */
  readonly expectedRevision?: bigint;
  /**
   * How the answer reads the written entity back, by id: the batch that projects the write may send
   * this read after its COMMIT (src/projections/follow-ups.ts), sparing the answer a round trip.
   */
  readonly readBack?: (id: string) => WaitRead;
}

/** What a write did: the entity it wrote, the log position its events reached, and whether it is gone. */
export interface Written {
  readonly id: string;
  /** Absent when the command changed nothing (an idempotent repeat). */
  readonly position?: bigint;
  readonly deleted: boolean;
  /** The rows of the call's `readBack` for this id, when the batch that projected the write answered it. */
  readonly rows?: ReadRows;
}

/**
 * The writes of one entity kind, whatever the edge. Bodies are raw client input, validated here;
 * a kind without deletes (users) leaves `remove` out.
 */
export interface WriteOperations {
  /** The projections its views come from (read-your-writes waits for them). */
  readonly projections: readonly string[];
  readonly create: (call: WriteCall, body: unknown) => Promise<Written>;
  readonly update: (call: WriteCall, id: string, body: unknown) => Promise<Written>;
  readonly remove?: (call: WriteCall, id: string) => Promise<Written>;
  /** The actions `act` takes, in the order clients are told them. */
  readonly actions: readonly string[];
  readonly act: (call: WriteCall, id: string, action: string, input: unknown) => Promise<Written>;
}

/** The command dependencies of the shared services. */
export const commandDeps = (services: Services): CommandDeps => ({
  store: services.store,
  codec: services.codec,
  newId: services.newId,
  log: services.log,
});

/**
 * Runs one command for a call and waits until `projections` show it (read-your-writes). A refused
 * delete names its referrers.
 */
export async function runCommand<C, E extends DomainEvent, S>(
  services: Services,
  call: WriteCall,
  aggregate: Aggregate<C, E, S>,
  projections: readonly string[],
  id: string,
  /** The command, or one prepared per attempt from facts of other streams (see executeCommand). */
  command: C | PreparedCommand<C>,
  options: {
    readonly expectedRevision?: bigint;
    readonly guards?: Parameters<typeof executeCommand>[4]['guards'];
    readonly now?: Date;
    /** The state the command starts from when the caller knows it (a create under a new id: `unwritten`). */
    readonly known?: Loaded<S>;
  } = {},
): Promise<Written> {
  const result = await executeCommand(commandDeps(services), aggregate, id, command, {
    ...commandContext(call.request, options.now ?? services.now()),
    expectedRevision: 'expectedRevision' in options ? options.expectedRevision : call.expectedRevision,
    guards: options.guards,
    known: options.known,
  }).catch(async (error: unknown) => {
    throw await nameReferrers(services.db, error);
  });
  // Appended with the request's condition, if it carried one: the caller was as recalled.
  if (result.position !== undefined) confirmWriter(call.request);
  const deleted = aggregate.isDeleted(result.state);
  const read = deleted ? undefined : call.readBack?.(id);
  const rows = result.position === undefined ? undefined : await services.waitFor(projections, result.position, read && { read });
  return { id, position: result.position, deleted, ...(rows && { rows }) };
}
