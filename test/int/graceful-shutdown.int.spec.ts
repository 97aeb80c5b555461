import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { shutDownGracefully } from '../../src/http/shutdown.js';
import { createLogger } from '../../src/log.js';
import { wsClient } from '../support/graphql-ws.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const log = createLogger({ level: 'silent' });

/** A raw HTTP request whose body is sent in two parts, so it is in flight for as long as the test wants. */
async function startSlowWrite(
  port: number,
  token: string,
  body: string,
): Promise<{ socket: Socket; finish: () => void; response: Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const response = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received));
  });
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/templates HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
  );
  return { socket, finish: () => socket.write(body.slice(half)), response };
}

/**
 * Whether a new request is still served: during a shutdown it is either refused at the socket (the
 * listener closed) or answered 503 with Connection: close (arrived while closing), never served.
 */
const newRequestServed = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (response) => response.status !== 503,
    () => false,
  );

for (const target of databaseTargets()) {
  describe(`graceful shutdown on ${target.name}`, () => {
    let h: HttpHarness | undefined;

    afterEach(async () => {
      // shutDownGracefully closed the app and the services; the harness still owns the database.
      await h?.database.close();
      h = undefined;
    });

    it('stops accepting, finishes the write in flight, closes subscriptions with 1001, and leaves every projection at a committed checkpoint', async () => {
      h = await openHttpApp(target);
      await h.app.listen({ host: '127.0.0.1', port: 0 });
      const address = h.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      const baseUrl = `http://127.0.0.1:${address.port}`;

      // A live subscription (its connection acknowledged): it must be told the server is going away.
      let closedWith: (code: number) => void = () => undefined;
      const closed = new Promise<number>((resolve) => (closedWith = resolve));
      const client = wsClient(baseUrl, h.adminToken, { lazy: false, onClose: (code) => closedWith(code) });
      const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
      client.subscribe(
        { query: 'subscription { changes { entityType } }' },
        { next: () => undefined, error: () => undefined, complete: () => undefined },
      );
      await connected;
      const arrived = once(h.app.server, 'request');
      const write = await startSlowWrite(address.port, h.adminToken, JSON.stringify({ name: 'Drained', template: 'drained' }));
      await arrived;

      const shutdown = shutDownGracefully({ app: h.app, services: h.services, log, timeoutMs: 30_000 });
      expect(await closed).toBe(1001);
      expect(await newRequestServed(address.port)).toBe(false);

      write.finish();
      const response = await write.response;
      expect(response).toMatch(/^HTTP\/1\.1 201 /);
      const position = /\r\nx-position: (\d+)\r\n/i.exec(response)?.[1];
      expect(position).toBeDefined();

      expect(await shutdown).toEqual({ drained: true });
      // Nothing half-applied: the templates projection committed up to the drained write before the runners stopped.
      const { rows } = await h.database.pool.query<{ position: string }>(
        "SELECT position FROM projection_checkpoints WHERE name = 'templates'",
      );
      expect(BigInt(rows[0]?.position ?? '0')).toBeGreaterThanOrEqual(BigInt(position ?? '0'));
    });

    it('gives up on requests still running after the timeout: closes their connections and says so', async () => {
      h = await openHttpApp(target);
      await h.app.listen({ host: '127.0.0.1', port: 0 });
      const address = h.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      const arrived = once(h.app.server, 'request');
      const stuck = await startSlowWrite(address.port, h.adminToken, JSON.stringify({ name: 'Stuck', template: 'stuck' }));
      await arrived;

      expect(await shutDownGracefully({ app: h.app, services: h.services, log, timeoutMs: 200 })).toEqual({ drained: false });
      // The connection was cut without an answer.
      expect(await stuck.response).toBe('');
    });
  });
}
