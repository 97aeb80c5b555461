import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A graphql-ws client (subprotocol graphql-transport-ws) for a running app, signed in with `token`. */
export function wsClient(
  baseUrl: string,
  token: string | undefined,
  options: { lazy?: boolean; onClose?: (code: number, reason: string) => void } = {},
): Client {
  return createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/api/graphql`,
    webSocketImpl: WebSocket,
    lazy: options.lazy ?? true,
    retryAttempts: 0,
    // Tests watch the close code through on.closed; the default would print the refusal.
    onNonLazyError: () => undefined,
    connectionParams: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    on: { closed: (event) => options.onClose?.((event as { code: number }).code, (event as { reason: string }).reason) },
  });
}

/** One received message of a subscription, or how it ended. */
export type Received = { readonly data: Record<string, unknown> } | { readonly error: unknown } | { readonly complete: true };

/** Subscribes and collects what arrives; `next(n)` waits until n items have arrived. */
export function collect(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const items: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const settle = () => {
    for (const waiter of [...waiters])
      if (items.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
  };
  const push = (item: Received) => {
    items.push(item);
    settle();
  };
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (value) => push({ data: value.data ?? {} }),
      error: (error) => push({ error }),
      complete: () => push({ complete: true }),
    },
  );
  return {
    items,
    unsubscribe,
    /** Resolves once `count` items arrived; rejects after `timeoutMs`. */
    waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
      if (items.length >= count) return Promise.resolve(items);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`waited ${timeoutMs} ms for ${count} items, got ${items.length}: ${JSON.stringify(items).slice(0, 500)}`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(items);
          },
        });
      });
    },
  };
}

/** One message of the graphql-transport-ws protocol. */
export type ProtocolMessage = { readonly type: string; readonly id?: string; readonly payload?: unknown };

/**
 * A WebSocket on /api/graphql speaking graphql-transport-ws by hand (for what a well-behaved client
 * never does: no connection_init, a reused id). Rejects when the upgrade is refused.
 */
export async function rawSocket(baseUrl: string) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/graphql`, 'graphql-transport-ws');
  const messages: ProtocolMessage[] = [];
  const watchers: { holds: (message: ProtocolMessage) => boolean; resolve: (message: ProtocolMessage) => void }[] = [];
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as ProtocolMessage;
    messages.push(message);
    for (const watcher of [...watchers]) {
      if (!watcher.holds(message)) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.resolve(message);
    }
  });
  const closed = new Promise<[number, string]>((resolve) => socket.on('close', (code, reason) => resolve([code, reason.toString()])));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    messages,
    closed,
    send: (message: ProtocolMessage): void => socket.send(JSON.stringify(message)),
    close: (): void => socket.close(),
    /** The first message (received so far or later) for which `holds` is true. */
    until(holds: (message: ProtocolMessage) => boolean): Promise<ProtocolMessage> {
      const seen = messages.find(holds);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => watchers.push({ holds, resolve }));
    },
  };
}
