import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import type { Services } from '../services.js';

/** What a graceful shutdown closes, and how long it waits for requests in flight. */
export interface ShutdownTargets {
  readonly app: FastifyInstance;
  readonly services: Pick<Services, 'close'>;
  readonly log: Logger;
  /** Longest wait for requests in flight before their connections are closed (`SHUTDOWN_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** Flushes telemetry last (buffered spans of the final requests). */
  readonly flush?: () => Promise<void>;
}

/** How the shutdown went: whether every request in flight finished in time. */
export interface ShutdownOutcome {
  readonly drained: boolean;
}

/**
 * Stops the service in the order that loses nothing:
 * 1. the listener stops accepting; a request arriving on a kept-alive connection meanwhile gets 503
 *    with `Connection: close` (Fastify's `return503OnClosing`), so load balancers retry elsewhere;
 * 2. GraphQL subscriptions are closed with 1001 (going away: graphql-ws clients reconnect to
 *    another replica) — the GraphQL plugin's preClose hook;
 * 3. requests in flight finish, for at most `timeoutMs`; then their connections are cut (counted in
 *    the log line). A write in flight waits for its read model here, so projections still run;
 * 4. the services close: each projection finishes the batch it is applying and commits its
 *    checkpoint, then the change feed, the event store and the pool close;
 * 5. telemetry is flushed.
 */
export async function shutDownGracefully(targets: ShutdownTargets): Promise<ShutdownOutcome> {
  const { app, log } = targets;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), targets.timeoutMs);
    timer.unref();
  });
  const closed = app.close().then(() => 'closed' as const);
  const first = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  const drained = first === 'closed';
  if (!drained) {
    log.warn({ timeoutMs: targets.timeoutMs }, 'requests still running after the shutdown timeout; closing their connections');
    app.server.closeAllConnections();
    await closed;
  }
  await targets.services.close();
  await targets.flush?.().catch((error: unknown) => log.warn({ err: error }, 'could not flush traces'));
  log.info({ drained, ms: Date.now() - started }, 'shut down');
  return { drained };
}
