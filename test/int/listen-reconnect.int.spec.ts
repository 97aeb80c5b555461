import { EventEmitter } from 'node:events';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool, type SqlPool } from '../../src/storage/pool.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

/*
 * The LISTEN connection comes back after an outage with back-off, one attempt at a time, also while
 * the server accepts connections and then drops them (starting up, too many clients). Each such
 * attempt once reconnected twice (its failure and its end), doubling the attempts every round:
 * thousands of sockets within minutes, until the server and the process ran out of connections.
 * PostgreSQL only: PGlite has no other process and no LISTEN connection.
 */

/** A TCP proxy to the server that forwards, or accepts and drops at once (counting those it dropped). */
async function proxyTo(port: number) {
  let mode: 'forward' | 'drop' = 'forward';
  let dropped = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (mode === 'drop') {
      dropped++;
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    dropped: () => dropped,
    /** Drops every connection it carries and every one that comes, until `forward`. */
    drop() {
      mode = 'drop';
      for (const socket of open) socket.destroy();
    },
    forward() {
      mode = 'forward';
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const target = databaseTargets().find((t) => t.name === 'postgres');

if (target)
  describe('the LISTEN connection after an outage', () => {
    let database: TestDatabase;
    let proxy: Awaited<ReturnType<typeof proxyTo>>;
    let pool: SqlPool;

    beforeAll(async () => {
      database = await target.create({ migrate: false });
      const url = new URL(database.url ?? '');
      proxy = await proxyTo(Number(url.port || '5432'));
      url.port = String(proxy.port);
      pool = createPgPool({ connectionString: url.toString() });
    });
    afterAll(async () => {
      await pool.end();
      await proxy.close();
      await database.close();
    });

    it('reconnects one attempt at a time while the server drops connections, then listens on one connection again', async () => {
      const payloads: string[] = [];
      const arrivals = new EventEmitter();
      /** Resolves once `payload` has arrived (at once if it has). */
      const arrived = (payload: string) =>
        payloads.includes(payload) ? Promise.resolve() : new Promise<void>((resolve) => arrivals.once(payload, () => resolve()));
      const stop = await pool.listen('outage_channel', (payload) => {
        payloads.push(payload);
        arrivals.emit(payload);
      });
      proxy.drop();
      // Back-off from 250 ms, doubling: attempts near 0.25, 0.75, 1.75 and 3.75 s. Doubling chains made 1 + 2 + 4 + … of them.
      // A span of time, not an event, is what is measured here: how many attempts fit in it.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(proxy.dropped()).toBeGreaterThanOrEqual(2);
      expect(proxy.dropped()).toBeLessThanOrEqual(4);
      proxy.forward();
      // Restored: the empty payload says so (a wake-up covering what was missed).
      await arrived('');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        );
        expect(rows[0]?.n).toBe('1');
        await admin.query("NOTIFY outage_channel, 'after'");
        await arrived('after');
        expect(payloads.filter((p) => p === 'after')).toHaveLength(1);
      } finally {
        await admin.end();
        await stop();
      }
    });
  });
