import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Kind, type DocumentNode } from 'graphql';
import type { Metrics } from '../metrics.js';

/** The operation type each request executed (requests refused before execution have none). */
const operations = new WeakMap<FastifyRequest, string>();

/** Remembers what kind of operation a request runs: `query` or `mutation` (the label, never the name a client chose). */
export function noteOperation(request: FastifyRequest, document: DocumentNode, operationName: string | undefined): void {
  const definition = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName),
  );
  if (definition?.kind === Kind.OPERATION_DEFINITION) operations.set(request, definition.operation);
}

/** Observes each GraphQL request's duration by operation type, on the GraphQL route only (not GraphiQL's page or assets). */
export function observeOperations(scope: FastifyInstance, path: string, metrics: Pick<Metrics, 'graphqlOperationDuration'>): void {
  scope.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.url === path && !String(reply.getHeader('content-type') ?? '').startsWith('text/html'))
      metrics.graphqlOperationDuration.observe({ operation: operations.get(request) ?? 'none' }, reply.elapsedTime / 1000);
    done();
  });
}

/** Wraps Mercurius' error formatter so each error answered is counted by its `extensions.code`. */
export function countingErrors<
  A extends unknown[],
  R extends { response: { errors?: readonly { extensions?: Record<string, unknown> }[] } },
>(format: (...args: A) => R, metrics: Pick<Metrics, 'graphqlErrors'>): (...args: A) => R {
  return (...args) => {
    const formatted = format(...args);
    for (const error of formatted.response.errors ?? []) {
      const code = error.extensions?.code;
      metrics.graphqlErrors.inc({ code: typeof code === 'string' ? code : 'UNKNOWN' });
    }
    return formatted;
  };
}
