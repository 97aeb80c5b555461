import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createPgPool, type SqlPool } from '../../src/storage/pool.js';
import type { BenchQuery } from './queries.js';

/** The request body both servers read: GraphQL's `{query, variables}` (the floor ignores the query). */
const floorBody = z.object({ variables: z.record(z.string(), z.unknown()).optional() });

/** A bare Fastify with the hand-written routes, `POST /floor/<query name>`, and its own pool. */
export interface FloorServer {
  readonly app: FastifyInstance;
  readonly pool: SqlPool;
  /** The same server, its statements prepared once per connection as the service's are (src/db/prepared.ts). */
  readonly preparedPool: SqlPool;
  close(): Promise<void>;
}

/** Resolves an Authorization header to a caller or throws (the service's authenticator). */
export type Authenticate = (header: string) => Promise<unknown>;

/**
 * The floor: what the same answers cost without GraphQL, the service's plugins or authentication,
 * at `POST /floor/<query>`. `POST /floor-auth/<query>` adds the service's per-request authentication
 * (token check and its session lookup) in front, to show how much of the gap that is, and
 * `POST /floor-prepared/<query>` runs the floor's statements as named prepared statements, as the
 * service runs its own. The pools have the service's size (10), so every side has the same database
 * concurrency.
 */
export async function openFloor(databaseUrl: string, queries: readonly BenchQuery[], authenticate: Authenticate): Promise<FloorServer> {
  // The service's own pool, without and with its statement preparing.
  const pool = createPgPool({ connectionString: databaseUrl, max: 10, prepareStatements: false });
  const preparedPool = createPgPool({ connectionString: databaseUrl, max: 10, prepareStatements: true });
  const app = Fastify({ logger: false });
  const variablesOf = (request: FastifyRequest): Record<string, unknown> => floorBody.parse(request.body).variables ?? {};
  for (const query of queries) {
    app.post(`/floor/${query.name}`, async (request) => query.floor(pool, variablesOf(request)));
    app.post(`/floor-prepared/${query.name}`, async (request) => query.floor(preparedPool, variablesOf(request)));
    app.post(`/floor-auth/${query.name}`, async (request) => {
      await authenticate(request.headers.authorization ?? '');
      return query.floor(pool, variablesOf(request));
    });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    pool,
    preparedPool,
    async close() {
      await app.close();
      await Promise.all([pool.end(), preparedPool.end()]);
    },
  };
}

/** `http://127.0.0.1:<port>` of a listening Fastify. */
export function baseUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new TypeError('the server is not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}
