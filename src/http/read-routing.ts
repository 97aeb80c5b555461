import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getOperationAST, OperationTypeNode, parse } from 'graphql';
import { Lru } from '../lru.js';
import type { Services } from '../services.js';
import { readRoute } from '../storage/read-route.js';
import { standbyFor } from '../edge/standby-reads.js';

/**
 * Which requests a hot standby serves (READ_DATABASE_URL; src/read/replicas.ts): REST reads under
 * /api and GraphQL queries. Sign-in and its callbacks (they write), WebSocket upgrades (a
 * subscription's reads for each change find their standby themselves: src/edge/standby-reads.ts),
 * and everything else stay on the primary. Authentication ran before (an onRequest hook), on the
 * primary: a session created a moment ago is found.
 */

/** The operation types of documents seen, by text (a client repeats its documents). */
const operations = new Lru<string, OperationTypeNode | undefined>(500);

/** The type of the operation a GraphQL POST runs; undefined when the document does not parse (GraphQL says why). */
function operationOf(body: unknown): OperationTypeNode | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return undefined;
  const key = `${typeof operationName === 'string' ? operationName : ''}\u0000${query}`;
  if (operations.has(key)) return operations.get(key);
  let type: OperationTypeNode | undefined;
  try {
    type = getOperationAST(parse(query), typeof operationName === 'string' ? operationName : undefined)?.operation;
  } catch {
    type = undefined; // not a document: GraphQL answers why, on the primary
  }
  operations.set(key, type);
  return type;
}

/** Whether a standby may serve the request. */
export function isStandbyRead(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0] ?? '';
  if (!path.startsWith('/api/') || path.startsWith('/api/auth/')) return false;
  if (request.headers.upgrade !== undefined) return false;
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  return request.method === 'POST' && path === '/api/graphql' && operationOf(request.body) === OperationTypeNode.QUERY;
}

/**
 * Runs each read request's handler with its standby as the read route, once the standby shows every
 * write this process acknowledged; a standby that does not catch up in time, or cannot be asked, is
 * passed over and the primary answers (src/edge/standby-reads.ts: logged and counted).
 */
export function registerReadRouting(app: FastifyInstance, services: Services): void {
  const replicas = services.readReplicas;
  if (!replicas) return;
  // Callback style: the route runs inside readRoute.run, so everything it starts reads from the standby.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!isStandbyRead(request)) {
      done();
      return;
    }
    // standbyFor never rejects: a standby it cannot ask is passed over.
    void standbyFor(services, (all, replica) => all.caughtUp(replica), request.log).then((standby) => {
      if (standby) readRoute.run(standby, done);
      else done();
    });
  });
}
