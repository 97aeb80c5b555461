import type { FastifyRequest } from 'fastify';
import type { GraphQLResolveInfo } from 'graphql';
import type { WebSocket } from 'ws';
import { AppError } from '../errors.js';
import type { Principal } from '../model/principal.js';
import { auditLogVisibility } from '../read/audit-log.js';
import type { Change, ChangeListener } from '../read/change-feed.js';
import type { RunLogChunk } from '../read/run-logs.js';
import type { Services } from '../services.js';
import { canonicalUuid } from '../validation.js';
import { subscriptionError } from './errors.js';
import type { GraphContext } from './resolvers.js';
import { openRunLogTail } from './run-logs.js';

/**
 * `subscription { changes(entityTypes, entityIds, after) }` over graphql-ws (subprotocol
 * `graphql-transport-ws`, or the older `graphql-ws`) on /api/graphql. The caller signs in with
 * `connection_init`'s payload; each subscription is fed by the replica's change feed
 * (src/read/change-feed.ts), keeps what the audit log would show the caller, and is ended when the
 * caller's sign-in stops working (checked every SUBSCRIPTION_AUTH_RECHECK_MS).
 */

/** The close code of a connection refused for its credentials (graphql-ws uses 4401 for Unauthorized). */
export const UNAUTHORIZED_CLOSE = 4401;
/** The close code of a connection over the caller's limit (graphql-ws uses 4429 for too many requests). */
export const TOO_MANY_CLOSE = 4429;

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
"""
Live updates over graphql-ws (subprotocol graphql-transport-ws) on /api/graphql; sign in with \`connection_init\`'s payload \`{"Authorization": "Bearer <token>"}\` or \`{"token": "<token>"}\`.
"""
type Subscription {
  """
  Every change the caller may read (the audit log's rules), optionally only of some entity types or ids. With \`after\`, every change committed after that position first, then live: nothing missed, nothing twice.
  """
  changes(entityTypes: [String!], entityIds: [UUID!], after: String): Change!
  """
  A run's log, live (\`resource:read\`): every chunk after \`after\` (a sequence number; default 0, the start), then each chunk as the runner appends it; completes once the run has succeeded or failed and every chunk was sent.
  """
  runLog(runId: UUID!, after: Int): RunLogChunk!
}
`;

/** What a subscription streams from: an iterator that can be ended, or failed with a reason. */
interface LiveSource<T> {
  next(): Promise<IteratorResult<T>>;
  return(): Promise<IteratorResult<T>>;
  fail(error: Error): void;
}

/** What a signed-in connection carries in its context. */
interface ConnectionContext {
  readonly services: Services;
  readonly request: FastifyRequest;
  principal?: Principal;
  /** The `Authorization` value the connection signed in with, checked again while it lives. */
  authorization?: string;
  /** This connection, counted against its caller's limit until it closes. */
  connection?: object;
}

/** The bearer credential in a `connection_init` payload: `{Authorization}`, `{authorization}`, `{headers: {Authorization}}` or `{token}`. */
export function authorizationOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const fields = payload as Record<string, unknown>;
  const headers = typeof fields.headers === 'object' && fields.headers !== null ? (fields.headers as Record<string, unknown>) : fields;
  const header = headers.Authorization ?? headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') return header;
  return typeof fields.token === 'string' && fields.token !== '' ? `Bearer ${fields.token}` : undefined;
}

const parseAfter = (after: unknown): bigint | undefined => {
  if (after === undefined || after === null) return undefined;
  if (typeof after !== 'string' || !/^\d{1,19}$/.test(after)) {
    throw new AppError('VALIDATION', 'after must be a position received in a change', {
      errors: [{ field: 'after', message: 'must be a non-negative integer, as a string' }],
    });
  }
  return BigInt(after);
};

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

/** Mercurius' `subscription` options and the Subscription and Change resolvers, on these services. */
export function buildSubscriptions(
  services: Services,
  loadUser: (context: GraphContext, id: string, info: GraphQLResolveInfo) => Promise<unknown>,
) {
  const config = services.config;
  const connections = tally(config.SUBSCRIPTION_MAX_CONNECTIONS, 'subscription connections');
  const subscriptions = tally(config.SUBSCRIPTION_MAX_PER_CALLER, 'subscriptions');

  const options = {
    context: (_socket: WebSocket, request: FastifyRequest): ConnectionContext => ({ services, request }),
    // Mercurius calls onConnect as a method of its connection, whose socket this closes with 4401
    // (graphql-ws's "Unauthorized") when the credentials fail, so the client sees why.
    async onConnect(this: { socket?: WebSocket }, data: { payload?: unknown }): Promise<Partial<ConnectionContext> | false> {
      const authorization = authorizationOf(data.payload);
      try {
        if (!authorization)
          throw new AppError('UNAUTHENTICATED', 'Not authenticated: send {"Authorization": "Bearer <token>"} in connection_init');
        const principal = await services.authenticator.authenticate(authorization, services.now());
        const connection = {};
        connections.add(principal.userId, connection);
        return { principal, authorization, connection };
      } catch (error) {
        const refused = error instanceof AppError ? error : new AppError('UNAUTHENTICATED', 'Not authenticated');
        const code = refused.code === 'RATE_LIMITED' ? TOO_MANY_CLOSE : UNAUTHORIZED_CLOSE;
        // Close reasons are limited to 123 bytes.
        this.socket?.close(code, refused.message.slice(0, 120));
        return false;
      }
    },
    onDisconnect(context: ConnectionContext): void {
      if (context.principal && context.connection) connections.remove(context.principal.userId, context.connection);
    },
    keepAlive: 15_000,
  };

  const Subscription = {
    changes: {
      async subscribe(_root: unknown, args: Record<string, unknown>, context: ConnectionContext) {
        try {
          return await subscribeToChanges(args, context);
        } catch (error) {
          throw subscriptionError(error, services.log);
        }
      },
      resolve: (change: Change) => change,
    },
    runLog: {
      async subscribe(_root: unknown, args: Record<string, unknown>, context: ConnectionContext) {
        try {
          return await live(context, (principal) => openRunLogTail(services, principal, args));
        } catch (error) {
          throw subscriptionError(error, services.log);
        }
      },
      resolve: (chunk: RunLogChunk) => chunk,
    },
  };

  /** The caller a subscription runs for (onConnect signed them in). */
  function signedInCaller(context: ConnectionContext): { principal: Principal; authorization: string } {
    const { principal, authorization } = context;
    if (!principal || !authorization) throw new AppError('UNAUTHENTICATED', 'Not authenticated.');
    return { principal, authorization };
  }

  /**
   * A subscription's iterator over `source`, counted against its caller's limit and ended when the
   * caller's sign-in stops working (logout, revoked sessions, deactivation: checked every
   * SUBSCRIPTION_AUTH_RECHECK_MS); `onRecheck` sees the caller as they are now.
   */
  async function live<T>(
    context: ConnectionContext,
    open: (principal: Principal) => Promise<LiveSource<T>>,
    onRecheck?: (now: Principal) => void,
  ): Promise<AsyncIterableIterator<T>> {
    const { principal, authorization } = signedInCaller(context);
    const token = {};
    // The place is taken before the source opens: a refused subscription never holds a listener.
    subscriptions.add(principal.userId, token);
    let source: LiveSource<T>;
    try {
      source = await open(principal);
    } catch (error) {
      subscriptions.remove(principal.userId, token);
      throw error;
    }
    const recheck = setInterval(() => {
      services.authenticator.authenticate(authorization, services.now()).then(
        (now) => onRecheck?.(now),
        (error: unknown) => {
          const reason = error instanceof AppError ? error.message : 'sign-in no longer valid';
          source.fail(new AppError('UNAUTHENTICATED', `Not authenticated: ${reason}. The subscription has ended.`));
        },
      );
    }, config.SUBSCRIPTION_AUTH_RECHECK_MS);
    recheck.unref();
    const release = () => {
      clearInterval(recheck);
      subscriptions.remove(principal.userId, token);
    };
    const iterator: AsyncIterableIterator<T> = {
      next: async () => {
        try {
          const result = await source.next();
          if (result.done) release();
          return result;
        } catch (error) {
          release();
          // Mercurius does not call return() after an error: the source is released here.
          await source.return();
          throw subscriptionError(error, services.log);
        }
      },
      return: async () => {
        release();
        return source.return();
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async function subscribeToChanges(args: Record<string, unknown>, context: ConnectionContext) {
    const after = parseAfter(args.after);
    const entityTypes = args.entityTypes as string[] | undefined;
    const entityIds = (args.entityIds as string[] | undefined)?.map((id) => canonicalUuid.parse(id));
    let listener: ChangeListener | undefined;
    return live(
      context,
      async (principal) => (listener = await services.changes.listen(after, acceptor(principal, entityTypes, entityIds))),
      // A role change reaches a live subscription within a recheck.
      (now) => listener?.refilter(acceptor(now, entityTypes, entityIds)),
    );
  }

  const ChangeType = {
    position: (change: Change) => String(change.position),
    actor: (change: Change, _args: unknown, context: GraphContext, info: GraphQLResolveInfo) =>
      change.actorId === null ? null : loadUser(context, change.actorId, info),
  };

  return { options, resolvers: { Subscription, Change: ChangeType } };
}
