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
