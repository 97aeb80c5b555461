import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError } from '../errors.js';
import { parseJsonInput } from '../input-gate.js';
import type { Principal } from '../model/principal.js';

/**
 * The WebSocket side of subscriptions, below graphql-ws: a socket must sign in (`connection_init`)
 * within SUBSCRIPTION_INIT_TIMEOUT_MS and counts against its address until it does; once signed in it
 * is bound to its credential, checked again every SUBSCRIPTION_AUTH_RECHECK_MS, and a logout, a
 * revocation, a deactivation, an expiry or a lost permission closes the whole socket (not only the
 * subscriptions running on it); a subscription id names at most one running subscription.
 * Close codes are graphql-ws' own (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md).
 */

/** graphql-ws' close codes, as this service uses them. */
export const CLOSE = {
  /** The credentials failed (at sign-in or at a recheck). */
  unauthorized: 4401,
  /** The caller lost a permission it had when the socket signed in: connect again. */
  forbidden: 4403,
  /** No `connection_init` within SUBSCRIPTION_INIT_TIMEOUT_MS. */
  initTimeout: 4408,
  /** A subscription id already running on this socket. */
  duplicateId: 4409,
  /** Over a per-caller limit, or a second `connection_init`. */
  tooMany: 4429,
  /** A message the input gate refuses (not JSON, nested too deep, bad text, a document over its bounds). */
  badMessage: 4400,
} as const;

/** What one running subscription lets its socket do to it. */
export interface LiveHandle {
  /** Ends the subscription with `error` (sent to the client as the subscription's error). */
  fail(error: Error): void;
  /** The caller is still signed in, as `now` (e.g. a role was added). */
  refresh?(now: Principal): void;
  /** Ends it quietly and gives its places back (the socket closed). */
  release(): Promise<void>;
}

/** What the guard needs of the rest of the service. */
export interface SocketGuardOptions {
  readonly initTimeoutMs: number;
  readonly maxPendingPerAddress: number;
  readonly recheckMs: number;
  /** Signs a caller in from an `Authorization` value (throws AppError UNAUTHENTICATED when it does not). */
  readonly authenticate: (authorization: string) => Promise<Principal>;
  /** Refuses a subscription's document before Mercurius parses it (size, nesting, text). */
  readonly checkDocument: (source: string) => void;
  readonly log: { info(object: object, message: string): void };
}

/** Close reasons are limited to 123 bytes by the WebSocket protocol. */
const reason = (text: string): string => Buffer.from(text).subarray(0, 120).toString();

/** Whether `now` lacks a permission `before` had. */
const lostPermission = (before: Principal, now: Principal): boolean => before.permissions.some((p) => !now.permissions.includes(p));

/** One WebSocket on the GraphQL path, from its upgrade until it closes. */
export class LiveSocket {
  principal: Principal | undefined;
  authorization: string | undefined;
  private readonly running = new Map<string, LiveHandle>();
  private recheck: NodeJS.Timeout | undefined;
  private initTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private initialised = false;

  constructor(
    readonly socket: WebSocket,
    private readonly options: SocketGuardOptions,
    private releasePending: () => void,
  ) {
    this.initTimer = setTimeout(() => this.close(CLOSE.initTimeout, 'Connection initialisation timeout'), options.initTimeoutMs);
    this.initTimer.unref();
    socket.once('close', () => void this.ended());
    // Mercurius reads 'message' events and parses a subscription's document before any hook runs:
    // every message goes through the input gate first, and a refused one never reaches it.
    const emit = socket.emit.bind(socket);
    socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
      if (event !== 'message') return emit(event, ...args);
      const refused = this.refusal(args[0]);
      if (refused === undefined) return emit(event, ...args);
      this.close(CLOSE.badMessage, `Invalid message received: ${refused}`);
      return false;
    }) as typeof socket.emit;
  }

  /** Why the input gate refuses a message, or undefined. */
  private refusal(data: unknown): string | undefined {
    try {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
      const message = parseJsonInput(text, 'message');
      if (typeof message !== 'object' || message === null) return 'a message must be a JSON object';
      const { type, payload } = message as { type?: unknown; payload?: { query?: unknown } };
      if ((type === 'subscribe' || type === 'start') && typeof payload?.query === 'string') this.options.checkDocument(payload.query);
      return undefined;
    } catch (error) {
      return error instanceof AppError ? error.message : 'not JSON';
    }
  }

  /**
   * `connection_init` arrived: the init timeout is met (signing in may take longer on a busy
   * service). False for a second one, which graphql-ws answers by closing the socket (4429).
   */
  initReceived(): boolean {
    if (this.initialised) return false;
    this.initialised = true;
    clearTimeout(this.initTimer);
    return true;
  }

  /** The socket signed in: it stops counting against its address and is rechecked from now on. */
  signedIn(principal: Principal, authorization: string): void {
    this.releasePending();
    this.principal = principal;
    this.authorization = authorization;
    this.recheck = setInterval(() => void this.checkAgain(), this.options.recheckMs);
    this.recheck.unref();
  }

  /**
   * The caller as they are now, for a new subscription: a subscribe never runs on a credential that
   * stopped working since the last recheck (the socket closes instead).
   */
  async currentCaller(): Promise<{ principal: Principal; authorization: string }> {
    const { principal, authorization } = this;
    if (!principal || !authorization) throw new AppError('UNAUTHENTICATED', 'Not authenticated.');
    const now = await this.verify(principal, authorization);
    if (!now) throw new AppError('UNAUTHENTICATED', 'Not authenticated: the connection has been closed.');
    return { principal: now, authorization };
  }

  /** Registers a running subscription under its id; a second one under the same id closes the socket (4409). */
  claim(id: string, handle: LiveHandle): void {
    if (this.running.has(id) || this.closed) {
      this.close(CLOSE.duplicateId, `Subscriber for ${id} already exists`);
      throw new AppError('CONFLICT', `a subscription with id ${JSON.stringify(id)} is already running on this connection`);
    }
    this.running.set(id, handle);
  }

  /** The subscription under `id` has ended. */
  unclaim(id: string, handle: LiveHandle): void {
    if (this.running.get(id) === handle) this.running.delete(id);
  }

  /** Closes the socket with a graphql-ws code; what it was running ends with it. */
  close(code: number, text: string): void {
    if (this.socket.readyState <= 1) this.socket.close(code, reason(text));
    void this.ended();
  }

  private async checkAgain(): Promise<void> {
    const { principal, authorization } = this;
    if (!principal || !authorization || this.closed) return;
    const now = await this.verify(principal, authorization);
    if (now) for (const handle of this.running.values()) handle.refresh?.(now);
  }

  /** The caller now, or undefined once the socket is closed for what changed (4401 / 4403). */
  private async verify(principal: Principal, authorization: string): Promise<Principal | undefined> {
    let now: Principal;
    try {
      now = await this.options.authenticate(authorization);
    } catch (error) {
      const why = error instanceof AppError ? error.message : 'sign-in no longer valid';
      this.endFor(CLOSE.unauthorized, `Not authenticated: ${why}. The connection has been closed.`, 'UNAUTHENTICATED', principal);
      return undefined;
    }
    if (lostPermission(principal, now)) {
      this.endFor(CLOSE.forbidden, 'Forbidden: the caller lost a permission; connect again.', 'FORBIDDEN', principal);
      return undefined;
    }
    this.principal = now;
    return now;
  }

  /** Tells each running subscription why, then closes the socket once those errors are on their way. */
  private endFor(code: number, text: string, errorCode: 'UNAUTHENTICATED' | 'FORBIDDEN', principal: Principal): void {
    if (this.closed) return;
    this.options.log.info({ userId: principal.userId, code }, 'subscription connection closed: its sign-in changed');
    for (const handle of this.running.values()) handle.fail(new AppError(errorCode, text));
    // The errors travel through graphql's iterators (promise jobs); the close frame follows them.
    setImmediate(() => this.close(code, text));
  }

  private async ended(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.initTimer);
    clearInterval(this.recheck);
    this.releasePending();
    const handles = [...this.running.values()];
    this.running.clear();
    await Promise.all(handles.map((handle) => handle.release()));
  }
}

/**
 * Installs the guard on the GraphQL scope: upgrades over the per-address bound of sockets not yet
 * signed in are refused with 429, every accepted socket gets its LiveSocket (found with `socketOf`).
 */
export function guardSockets(
  scope: FastifyInstance,
  path: string,
  options: SocketGuardOptions,
): { socketOf(socket: WebSocket): LiveSocket | undefined } {
  const pendingByAddress = new Map<string, number>();
  const releaseByRequest = new WeakMap<IncomingMessage, () => void>();
  const sockets = new WeakMap<WebSocket, LiveSocket>();

  // A callback hook: plain HTTP requests pass without a promise.
  scope.addHook('onRequest', (request, reply, done) => {
    if (!request.ws || request.routeOptions.url !== path) return done();
    const address = request.ip;
    const pending = pendingByAddress.get(address) ?? 0;
    if (pending >= options.maxPendingPerAddress) {
      request.log.warn({ address, pending }, 'WebSocket upgrade refused: too many connections not signed in from this address');
      void reply.code(429).send({
        code: 'RATE_LIMITED',
        message: `at most ${options.maxPendingPerAddress} connections per address may wait for connection_init`,
      });
      return;
    }
    pendingByAddress.set(address, pending + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = (pendingByAddress.get(address) ?? 1) - 1;
      if (left <= 0) pendingByAddress.delete(address);
      else pendingByAddress.set(address, left);
    };
    releaseByRequest.set(request.raw, release);
    // An upgrade that never completes gives its place back with its TCP connection.
    request.raw.socket.once('close', release);
    done();
  });

  scope.websocketServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    sockets.set(socket, new LiveSocket(socket, options, releaseByRequest.get(request) ?? (() => undefined)));
  });

  return { socketOf: (socket) => sockets.get(socket) };
}
