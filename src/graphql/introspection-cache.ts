import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Lru } from '../lru.js';
import { wantsGraphqlResponse } from './media-type.js';

/**
 * Answers to introspection asked without a token, kept per request (text, variables, operation name
 * and answer media type): anyone may ask, the full schema answer is about 400 KB and costs tens of
 * milliseconds to compute, and it never changes while the process runs. So it is computed once and
 * sent again from memory, and asking repeatedly buys an anonymous caller no server work.
 */
export interface IntrospectionCache {
  /** Marks the request: its document is introspection only and the caller is anonymous (set before execution). */
  mark(request: FastifyRequest): void;
}

/** How many distinct anonymous introspection requests are kept (GraphiQL and code generators send a handful). */
const KEPT_ANSWERS = 16;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request's identity for the cache, or undefined when it is not anonymous or has no query text. */
function keyOf(request: FastifyRequest): string | undefined {
  if (request.headers.authorization !== undefined) return undefined;
  const source: unknown = request.method === 'GET' ? request.query : request.body;
  if (!isObject(source) || typeof source.query !== 'string') return undefined;
  return JSON.stringify([source.query, source.variables ?? null, source.operationName ?? null, wantsGraphqlResponse(request)]);
}

/** Hooks on the GraphQL route at `path`; registered before Mercurius so that they sit on its routes. */
export function registerIntrospectionCache(scope: FastifyInstance, path: string): IntrospectionCache {
  const answers = new Lru<string, { readonly payload: string; readonly contentType: string }>(KEPT_ANSWERS);
  const marked = new WeakSet<FastifyRequest>();
  scope.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const key = request.routeOptions.url === path ? keyOf(request) : undefined;
    const kept = key === undefined ? undefined : answers.get(key);
    // Answered from the cache: the reply is sent, so the chain goes no further.
    if (kept) void reply.type(kept.contentType).send(kept.payload);
    else done();
  });
  scope.addHook(
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      if (marked.has(request) && reply.statusCode === 200 && typeof payload === 'string') {
        const key = keyOf(request);
        if (key !== undefined) answers.set(key, { payload, contentType: String(reply.getHeader('content-type') ?? 'application/json') });
      }
      done(null, payload);
    },
  );
  return { mark: (request) => marked.add(request) };
}
