import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';

/** One delivery a local receiver took: its path, headers, raw body and the CloudEvent in it. */
export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly event: {
    id: string;
    type: string;
    subject: string;
    data: { entityKind: string; entityId: string; fields: Record<string, unknown> };
  };
}

/** A local receiver: records what it is sent, answering each path's status (200 unless told). */
export async function startReceiver(): Promise<{
  url: string;
  deliveries: Delivery[];
  answer: Map<string, number>;
  close(): Promise<void>;
}> {
  const deliveries: Delivery[] = [];
  const answer = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const status = answer.get(path) ?? 200;
      if (status < 300) deliveries.push({ path, headers: request.headers, body, event: JSON.parse(body) as Delivery['event'] });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    answer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Waits until `ready` holds, asking again after each answer: the delivery state lives outside the
 * log (no position to wait on) and deliveries arrive on their own schedule. Bounded by vitest.
 */
export const until = (ready: () => boolean | Promise<boolean>, what: string): Promise<void> =>
  vi.waitFor(
    async () => {
      if (!(await ready())) throw new Error(`still waiting for ${what}`);
    },
    { timeout: 20_000, interval: 25 },
  );
