import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { parseJsonInput } from '../input-gate.js';
import { GRAPHQL_RESPONSE_TYPE, wantsGraphqlResponse } from './media-type.js';

/** What a GraphQL-over-HTTP body's optional parameters must be, when present and not null. */
const PARAMETER_TYPES = { query: 'string', operationName: 'string', variables: 'object', extensions: 'object' } as const;

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A malformed request: answered 400 whatever the media type (the error formatter reads `statusCode`). */
const malformed = (message: string): Error => Object.assign(new Error(message), { statusCode: 400 });

/**
 * GraphQL over HTTP: `null` for `operationName`, `variables` and `extensions` means absent (Mercurius'
 * body schema would refuse a null `extensions`, and coerce a number `operationName` to text); any
 * other wrong type is the client's malformed request, refused before Mercurius sees it.
 */
function normaliseBody(request: FastifyRequest): void {
  const body = request.body;
  if (!isObject(body)) throw malformed('the body must be a JSON object (a request with content-type application/json)');
  const parameters = body as Record<string, unknown>;
  for (const [name, type] of Object.entries(PARAMETER_TYPES)) {
    const value = parameters[name];
    if (value === null && name !== 'query') Reflect.deleteProperty(parameters, name);
    else if (value !== undefined && !(type === 'object' ? isObject(value) : typeof value === type)) {
      throw malformed(`${name} must be ${type === 'object' ? 'a JSON object' : 'a string'}`);
    }
  }
}

/**
 * GraphQL over HTTP GET: `variables` and `extensions` are JSON text; each must be a JSON object,
 * read behind the input gate (Mercurius parses them again, now known to be safe).
 */
function checkQueryString(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  for (const name of ['variables', 'extensions'] as const) {
    const text = query[name];
    if (text === undefined || text === '') continue;
    if (typeof text !== 'string') throw malformed(`${name} must be given once`);
    let value: unknown;
    try {
      value = parseJsonInput(text, name);
    } catch (error) {
      throw malformed(error instanceof AppError ? error.message : `${name} must be valid JSON`);
    }
    if (value !== null && !isObject(value)) throw malformed(`${name} must be a JSON object`);
  }
}

/**
 * The HTTP side of GraphQL over HTTP on the endpoint at `path`: request parameters checked before
 * Mercurius, and the answer labelled `application/graphql-response+json` when the client prefers
 * it (the status codes that go with it are decided by the error formatter, ./errors.ts). Registered
 * before Mercurius so that the hooks sit on its route.
 */
export function registerRequestShape(scope: FastifyInstance, path: string): void {
  // Mercurius declares the shape of a 2xx answer, so Fastify wrote each one with a serializer built
  // from it (fast-json-stringify), which walks `data` (any object) generically: about 5 µs an answer,
  // 2-3% of a single read's CPU. Answers are written with JSON.stringify, as other statuses were;
  // an error's `path` keeps a list index as a number in a 200 answer too, as GraphQL specifies.
  scope.addHook('onRoute', (route) => {
    if (route.url === path && route.schema?.response !== undefined) route.schema = { ...route.schema, response: undefined };
  });
  scope.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if (request.routeOptions.url !== path || (request.method !== 'POST' && request.method !== 'GET')) return done();
    try {
      if (request.method === 'GET') checkQueryString(request);
      else normaliseBody(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  scope.addHook(
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      if (
        request.routeOptions.url === path &&
        wantsGraphqlResponse(request) &&
        String(reply.getHeader('content-type') ?? '').startsWith('application/json')
      )
        reply.type(`${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`);
      done(null, payload);
    },
  );
}
