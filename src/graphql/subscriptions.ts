import type { FastifyRequest } from 'fastify';
import type { GraphQLResolveInfo } from 'graphql';
import type { WebSocket } from 'ws';
import { AppError } from '../errors.js';
import type { Principal } from '../model/principal.js';
import { auditLogVisibility } from '../read/audit-log.js';
import { readAtChange } from '../edge/standby-reads.js';
import { declarationOf } from '../model/catalog.js';
import { PRIVATE_WHEN_OWNED, type PermissionResource } from '../model/permissions.js';
import { mayReadEntity, readableRows } from '../read/entity-access.js';
import type { Change, ChangeListener } from '../read/change-feed.js';
import type { RunLogChunk } from '../read/run-logs.js';
import type { Services } from '../services.js';
import { canonicalUuid } from '../validation.js';
import { subscriptionError } from './errors.js';
import type { GraphContext } from './context.js';
import { CLOSE, type LiveHandle, type LiveSocket } from './live-sockets.js';
import { openRunLogTail } from './run-logs.js';
import { doc, member } from './sdl-doc.js';

/**
 * `subscription { changes(entityTypes, entityIds, after) }` over graphql-ws (subprotocol
 * `graphql-transport-ws`, or the older `graphql-ws`) on /api/graphql. The caller signs in with
 * `connection_init`'s payload; each subscription is fed by the replica's change feed
 * (src/read/change-feed.ts) and keeps what the audit log would show the caller; the socket below it
 * (./live-sockets.ts) is closed when the caller's sign-in stops working. With hot standbys, what is
 * read for each change (its actor, ownership checks) is read there (src/edge/standby-reads.ts).
 */

/** The Change type and the Subscription root, with the descriptions GraphiQL shows. */
export const SUBSCRIPTION_SDL = `"""
A change to an entity, as the audit log records it (its changes are in the audit log).
"""
type Change {
  """
  The change's position in the event log: strictly increasing; pass the last one received as \`after\` to resume.
  """
  position: String!
  """
  What changed, as in the audit log: \`template\`, \`resource\`, \`auth_provider\`, \`user\`, \`sign_in\` …
  """
  entityType: String!
  """
  The entity's id (null for a failed sign-in of an unknown account).
  """
  entityId: UUID
  """
  The event type, e.g. \`ResourceTransitioned\`.
  """
  action: String!
  """
  When it happened.
  """
  at: DateTime!
  """
  Who did it (null for the service itself).
  """
  actor: User
}
${doc(
  "Live updates over graphql-ws (subprotocol graphql-transport-ws) on /api/graphql; sign in with `connection_init`'s payload " +
    '`{"Authorization": "Bearer <token>"}` or `{"token": "<token>"}`.',
)}type Subscription {
${member(
  "Every change the caller may read (the audit log's rules), optionally only of some entity types or ids. With `after`, every change " +
    'committed after that position first, then live: nothing missed, nothing twice.',
  'changes(entityTypes: [String!], entityIds: [UUID!], after: String): Change!',
)}${member(
  "A run's log, live (`resource:read`): every chunk after `after` (a sequence number; default 0, the start), then each chunk as the " +
    'runner appends it; completes once the run has ended (succeeded, failed, cancelled) and every chunk was sent.',
  'runLog(runId: UUID!, after: Int): RunLogChunk!',
)}}
`;

/** What a subscription streams from: an iterator that can be ended, or failed with a reason. */
interface LiveSource<T> {
  next(): Promise<IteratorResult<T>>;
  return(): Promise<IteratorResult<T>>;
  fail(error: Error): void;
}

/** What a connection carries in its context (Mercurius adds the subscription's `id` per subscribe). */
interface ConnectionContext {
  readonly services: Services;
  readonly request: FastifyRequest;
  /** The socket, bound to its credential once connection_init signed it in (./live-sockets.ts). */
  readonly live?: LiveSocket;
  principal?: Principal;
  /** This connection, counted against its caller's limit until it closes. */
  connection?: object;
  readonly id?: unknown;
}

/**
 * The bearer credential in a `connection_init` payload: `{Authorization}`, `{authorization}`, `{headers: {Authorization}}` or `{token}`.
 */
export function authorizationOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const fields = payload as Record<string, unknown>;
  const headers = typeof fields.headers === 'object' && fields.headers !== null ? (fields.headers as Record<string, unknown>) : fields;
  const header = headers.Authorization ?? headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') return header;
  return typeof fields.token === 'string' && fields.token !== '' ? `Bearer ${fields.token}` : undefined;
}

const badAfter = (message: string, details: Record<string, unknown> = {}, code: 'VALIDATION' | 'POSITION_AHEAD' = 'VALIDATION'): AppError =>
  new AppError(code, message, { errors: [{ field: 'after', message }], details });

/** `after` as a position no later than the event log's newest (a later one would wait forever). */
async function parseAfter(after: unknown, lastPosition: () => Promise<bigint | undefined>): Promise<bigint | undefined> {
  if (after === undefined || after === null) return undefined;
  if (typeof after !== 'string' || !/^\d{1,19}$/.test(after)) {
    throw badAfter('after must be a position received in a change: a non-negative integer, as a string');
  }
  const position = BigInt(after);
  const head = (await lastPosition()) ?? 0n;
  if (position > head) {
    throw badAfter(
      `after ${position} is beyond the newest position of the event log (${head}); pass a position received in a change`,
      { head: String(head) },
      'POSITION_AHEAD',
    );
  }
  return position;
}

/** Which changes a caller may see: the audit log's rules, narrowed by the subscription's arguments. */
function acceptor(
  principal: Principal,
  entityTypes: readonly string[] | undefined,
  entityIds: readonly string[] | undefined,
): (change: Change) => boolean {
  const visibility = auditLogVisibility(principal.permissions);
  const types = entityTypes ? new Set(entityTypes) : undefined;
  const ids = entityIds ? new Set(entityIds.map((id) => id.toLowerCase())) : undefined;
  return (change) =>
    (visibility.all || visibility.entityTypes.includes(change.entityType)) &&
    (types === undefined || types.has(change.entityType)) &&
    (ids === undefined || (change.entityId !== null && ids.has(change.entityId)));
}

/**
 * Owned secrets and integrations are their team's (docs/contract.md §6): a change of one reaches a
 * subscriber only if they may read that entity (src/read/entity-access.ts `mayReadEntity`), as its
 * row stands once the read side has applied the change: a deleted one by who could read it when it
 * existed. Other kinds, and callers with the kind's write, pass without a query.
 */
function readableChanges(services: Services, source: ChangeListener, caller: () => Principal): LiveSource<Change> {
  const mayRead = async (change: Change): Promise<boolean> => {
    const principal = caller();
    if (change.entityId === null || !PRIVATE_WHEN_OWNED.has(change.entityType)) return true;
    const resource = change.entityType as PermissionResource;
    const table = declarationOf(resource)?.table;
    if (table === undefined || readableRows(principal, resource, table) === undefined) return true;
    const entityId = change.entityId;
    // The live feed reads the log itself: the entity's row may not show this change yet (or exist).
    await services.waitFor([table], change.position);
    return readAtChange(services, change.position, () => mayReadEntity(services.db, principal, resource, entityId));
  };
  return {
    async next() {
      for (;;) {
        const result = await source.next();
        if (result.done || (await mayRead(result.value))) return result;
      }
    },
    return: () => source.return(),
    fail: (error) => source.fail(error),
  };
}

/** Per replica: open connections and subscriptions of each caller. */
function tally(limit: number, noun: string) {
  const open = new Map<string, Set<object>>();
  return {
    add(userId: string, token: object): void {
      const mine = open.get(userId) ?? new Set();
      if (mine.size >= limit) throw new AppError('RATE_LIMITED', `at most ${limit} ${noun} per caller are open at once`);
      mine.add(token);
      open.set(userId, mine);
    },
    remove(userId: string, token: object): void {
      const mine = open.get(userId);
      if (!mine?.delete(token)) return;
      if (mine.size === 0) open.delete(userId);
    },
  };
}

/** Mercurius' `subscription` options and the Subscription and Change resolvers, on these services and sockets. */
export function buildSubscriptions(
  services: Services,
  sockets: { socketOf(socket: WebSocket): LiveSocket | undefined },
  loadUser: (context: GraphContext, id: string, info: GraphQLResolveInfo) => Promise<unknown>,
) {
  const config = services.config;
  const connections = tally(config.SUBSCRIPTION_MAX_CONNECTIONS, 'subscription connections');
  const subscriptions = tally(config.SUBSCRIPTION_MAX_PER_CALLER, 'subscriptions');

  const options = {
    context: (socket: WebSocket, request: FastifyRequest): ConnectionContext => ({ services, request, live: sockets.socketOf(socket) }),
    // Mercurius calls onConnect as a method of its connection, whose socket this closes with 4401
    // (graphql-ws's "Unauthorized") when the credentials fail, so the client sees why.
    async onConnect(this: { socket?: WebSocket }, data: { payload?: unknown }): Promise<Partial<ConnectionContext> | false> {
      const live = this.socket ? sockets.socketOf(this.socket) : undefined;
      if (!live) return false;
      if (!live.initReceived()) {
        live.close(CLOSE.tooMany, 'Too many initialisation requests');
        return false;
      }
      const authorization = authorizationOf(data.payload);
      try {
        if (!authorization)
          throw new AppError('UNAUTHENTICATED', 'Not authenticated: send {"Authorization": "Bearer <token>"} in connection_init');
        const principal = await services.authenticator.authenticate(authorization, services.now());
        const connection = {};
        connections.add(principal.userId, connection);
        live.signedIn(principal, authorization);
        return { principal, connection };
      } catch (error) {
        const refused = error instanceof AppError ? error : new AppError('UNAUTHENTICATED', 'Not authenticated');
        live.close(refused.code === 'RATE_LIMITED' ? CLOSE.tooMany : CLOSE.unauthorized, refused.message);
        return false;
      }
    },
    onDisconnect(context: ConnectionContext): void {
      if (context.principal && context.connection) connections.remove(context.principal.userId, context.connection);
    },
    keepAlive: 15_000,
  };

  /**
   * A subscription refused before it started, as an iterator whose first step fails with the reason:
   * a thrown refusal would be logged by Mercurius at level error, though it is the client's input
   * (unexpected errors are still logged, by subscriptionError).
   */
  const refused = (error: unknown): AsyncIterableIterator<never> => {
    const reason = subscriptionError(error, services.log);
    const iterator: AsyncIterableIterator<never> = {
      next: () => Promise.reject(reason),
      return: () => Promise.resolve({ done: true, value: undefined }),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  };

  const Subscription = {
    changes: {
      subscribe: (_root: unknown, args: Record<string, unknown>, context: ConnectionContext) =>
        subscribeToChanges(args, context).catch(refused),
      resolve: (change: Change) => change,
    },
    runLog: {
      subscribe: (_root: unknown, args: Record<string, unknown>, context: ConnectionContext) =>
        live(context, (principal) => openRunLogTail(services, principal, args)).catch(refused),
      resolve: (chunk: RunLogChunk) => chunk,
    },
  };

  /**
   * A subscription's iterator over `source`: the caller checked again first, counted against its
   * limit, registered on its socket under its id (which ends it when the socket closes, and fails
   * it when the caller's sign-in stops working); `onRefresh` sees the caller as they are now.
   */
  async function live<T>(
    context: ConnectionContext,
    open: (principal: Principal) => Promise<LiveSource<T>>,
    onRefresh?: (now: Principal) => void,
  ): Promise<AsyncIterableIterator<T>> {
    const socket = context.live;
    if (!socket) throw new AppError('UNAUTHENTICATED', 'Not authenticated.');
    const { principal } = await socket.currentCaller();
    const id = String(context.id);
    const token = {};
    // Shared with the handle, which the socket may release at any await below.
    const state: { source?: LiveSource<T>; released: boolean } = { released: false };
    const handle: LiveHandle = {
      fail: (error) => state.source?.fail(error),
      refresh: onRefresh,
      release: async () => {
        if (state.released) return;
        state.released = true;
        subscriptions.remove(principal.userId, token);
        socket.unclaim(id, handle);
        await state.source?.return();
      },
    };
    // The places are taken before the source opens: a refused subscription never holds a listener.
    socket.claim(id, handle);
    let opened: LiveSource<T>;
    try {
      subscriptions.add(principal.userId, token);
      opened = await open(principal);
    } catch (error) {
      await handle.release();
      throw error;
    }
    if (state.released) {
      // The socket closed while the source opened: nobody will read it.
      await opened.return();
      throw new AppError('UNAUTHENTICATED', 'Not authenticated: the connection has been closed.');
    }
    state.source = opened;
    const iterator: AsyncIterableIterator<T> = {
      next: async () => {
        try {
          const result = await opened.next();
          if (result.done) await handle.release();
          return result;
        } catch (error) {
          // Mercurius does not call return() after an error: the source is released here.
          await handle.release();
          throw subscriptionError(error, services.log);
        }
      },
      return: async () => {
        await handle.release();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async function subscribeToChanges(args: Record<string, unknown>, context: ConnectionContext) {
    const after = await parseAfter(args.after, () => services.store.lastPosition());
    const entityTypes = args.entityTypes as string[] | undefined;
    const entityIds = (args.entityIds as string[] | undefined)?.map((id) => canonicalUuid.parse(id));
    let listener: ChangeListener | undefined;
    let caller: Principal | undefined;
    return live(
      context,
      async (principal) => {
        caller = principal;
        listener = await services.changes.listen(after, acceptor(principal, entityTypes, entityIds));
        return readableChanges(services, listener, () => caller ?? principal);
      },
      // A role added reaches a live subscription within a recheck (a permission lost closes the socket).
      (now) => {
        caller = now;
        listener?.refilter(acceptor(now, entityTypes, entityIds));
      },
    );
  }

  const ChangeType = {
    position: (change: Change) => String(change.position),
    actor: (change: Change, _args: unknown, context: GraphContext, info: GraphQLResolveInfo) => {
      const actorId = change.actorId;
      return actorId === null ? null : readAtChange(services, change.position, () => loadUser(context, actorId, info));
    },
  };

  return { options, resolvers: { Subscription, Change: ChangeType } };
}
