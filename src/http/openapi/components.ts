import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { ERROR_REGISTRY, type ErrorCode } from '../../errors.js';

/**
 * Building blocks of the OpenAPI document: the zod → JSON Schema bridge, the shared components
 * (problem details, bearer security, list parameters) and small helpers for operations.
 */

type Schema = OpenAPIV3_1.SchemaObject;
type Responses = OpenAPIV3_1.ResponsesObject;

/** The codes a REST problem can carry (GraphQL's own names left out). */
const restErrorCodes = (): ErrorCode[] =>
  (Object.keys(ERROR_REGISTRY) as ErrorCode[]).filter((code) => ERROR_REGISTRY[code].api !== 'graphql');

/** One operation (OpenAPI 3.1). */
export type Operation = OpenAPIV3_1.OperationObject;

/**
 * A path item with 3.1 operations only. openapi-types' own `OpenAPIV3_1.PathItemObject` intersects
 * the 3.0 operation type in, which no 3.1 schema (e.g. `type: ['string', 'null']`) satisfies.
 */
export type PathItem = Pick<OpenAPIV3_1.PathItemObject, 'summary' | 'description' | 'servers' | 'parameters'> & {
  [method in `${OpenAPIV3_1.HttpMethods}`]?: Operation;
};

/** The `paths` of the document. */
export type Paths = Record<string, PathItem>;

/** The OpenAPI 3.1 document, with {@link Paths} for its paths. */
export type OpenApiDocument = Omit<OpenAPIV3_1.Document, 'paths'> & { paths: Paths };

/**
 * The JSON Schema of what a zod schema accepts (its input: defaults are optional, transforms and
 * refinements show the type they start from). OpenAPI 3.1 schemas are JSON Schema 2020-12, zod's
 * default target, so only the `$schema` marker is dropped.
 */
export function schemaOf(schema: z.ZodType, description?: string): Schema {
  const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const { $schema: _dialect, ...rest } = converted;
  // zod's JSON Schema type is structurally wider than openapi-types' (both describe 2020-12).
  const result = rest as Schema;
  return description === undefined ? result : { ...result, description };
}

/** A `$ref` to a component schema. */
export const ref = (name: string): OpenAPIV3_1.ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/** An `application/json` request body. */
export const jsonBody = (schema: Schema | OpenAPIV3_1.ReferenceObject, required = true): OpenAPIV3_1.RequestBodyObject => ({
  required,
  content: { 'application/json': { schema } },
});

/** A JSON response with optional headers. */
export function jsonResponse(
  description: string,
  schema: Schema | OpenAPIV3_1.ReferenceObject,
  headers?: Record<string, OpenAPIV3_1.HeaderObject | OpenAPIV3_1.ReferenceObject>,
): OpenAPIV3_1.ResponseObject {
  return { description, ...(headers && { headers }), content: { 'application/json': { schema } } };
}

/** Error statuses the API answers with, each an RFC 9457 problem (`#/components/responses/{name}`). */
export const PROBLEM_RESPONSES = {
  400: 'BadRequest',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  412: 'PreconditionFailed',
  422: 'Unprocessable',
  429: 'TooManyRequests',
  503: 'Unavailable',
} as const;

/** An error status the API documents. */
export type ProblemStatus = keyof typeof PROBLEM_RESPONSES;

/** `$ref`s to the shared problem responses for the given statuses. */
export function problems(...statuses: readonly ProblemStatus[]): Responses {
  const responses: Responses = {};
  for (const status of statuses) responses[String(status)] = { $ref: `#/components/responses/${PROBLEM_RESPONSES[status]}` };
  return responses;
}

const PROBLEM_DESCRIPTIONS: Record<ProblemStatus, string> = {
  400: 'Invalid request: `errors` lists every invalid field.',
  401: 'No valid bearer token.',
  403: 'The caller lacks the permission (`missingPermission` names it).',
  404: 'No such entity or route.',
  405: 'The route does not take this method.',
  409: 'Conflict with the current state (e.g. an illegal lifecycle action, a name in use, referrers).',
  412: '`If-Match` does not match the current revision.',
  422: 'Well-formed but refused by a business rule (`errors` names the fields).',
  429: 'Too many requests.',
  503: 'A store is unavailable; try again shortly.',
};

const problemSchema: Schema = {
  type: 'object',
  description: 'RFC 9457 problem details (`application/problem+json`).',
  required: ['type', 'title', 'status', 'detail', 'code', 'message', 'error_code'],
  properties: {
    type: { type: 'string', description: 'URN of the problem type, e.g. `urn:infraledger:problem:validation`.' },
    title: { type: 'string' },
    status: { type: 'integer', description: 'The HTTP status.' },
    detail: { type: 'string' },
    code: {
      type: 'string',
      description: 'The stable machine code (docs/errors.md): match on it, not on `detail`.',
      enum: restErrorCodes(),
    },
    errors: {
      type: 'array',
      description: 'Every invalid field (400, 422).',
      items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
    requestId: { type: 'string', description: 'The `X-Request-Id` of the request.' },
    message: { type: 'string', description: '`detail` again, under the key the upstream project’s clients read.' },
    error_code: { type: 'string', description: '`code` again, under the key the upstream project’s clients read.' },
  },
  additionalProperties: true,
};

const entitySchema: Schema = {
  type: 'object',
  description:
    'An entity as the read model shows it: its fields (camelCase) plus the bookkeeping below. Write-only secrets are masked as `********`.',
  required: ['id', 'revision'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    revision: { type: 'integer', description: 'Stream revision; send it back as `If-Match` for optimistic concurrency.' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  additionalProperties: true,
};

// No `example` for `filter`: Swagger UI pre-fills it in "Try it out", and a sample filter finds nothing
// in a real catalog; the description gives one instead.
const jsonQuery = (name: string, description: string, example?: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string' },
  ...(example !== undefined && { example }),
});

/** The `components` section every path refers to. */
export function components(): OpenAPIV3_1.ComponentsObject {
  const responses: Record<string, OpenAPIV3_1.ResponseObject> = {};
  for (const [status, name] of Object.entries(PROBLEM_RESPONSES)) {
    responses[name] = {
      description: PROBLEM_DESCRIPTIONS[Number(status) as ProblemStatus],
      content: { 'application/problem+json': { schema: ref('Problem') } },
    };
  }
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A session or service-account JWT, or a personal access token, as `Authorization: Bearer <token>`.',
      },
    },
    schemas: { Problem: problemSchema, Entity: entitySchema },
    responses,
    parameters: {
      filter: jsonQuery(
        'filter',
        'JSON object: `{"field": value}`, arrays mean "one of", `null` "is null"; operators `__like`, `__ne`, `__in`, `__gt(e)`, ' +
          '`__lt(e)`; `q` searches names. For example `{"name__like":"prod"}`.',
      ),
      sort: jsonQuery('sort', 'JSON `[field, "ASC"|"DESC"]`; default `["createdAt","DESC"]`.', '["name","ASC"]'),
      range: jsonQuery('range', 'JSON `[offset, limit]`; default `[0, 100]`, limit at most MAX_PAGE_SIZE.', '[0,24]'),
      id: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ifMatch: {
        name: 'If-Match',
        in: 'header',
        required: false,
        description: 'Expected revision (`"3"` or `3`); a mismatch answers 412.',
        schema: { type: 'string' },
      },
      idempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          "Makes a retry safe: the same key (per caller, kept 24 h) answers the first request's status, body, ETag and Location again " +
          '(`Idempotent-Replayed: true`); another request under the key is a 422.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    },
    headers: {
      ContentRange: {
        description: '`{plural} {first}-{last}/{total}`, or `{plural} */{total}` when the page is empty.',
        schema: { type: 'string' },
      },
      ETag: { description: 'The entity revision, quoted.', schema: { type: 'string' } },
      Location: { description: 'URL of the created entity.', schema: { type: 'string' } },
    },
  };
}

/** `$ref`s to shared parameters. */
export const param = (name: 'filter' | 'sort' | 'range' | 'id' | 'ifMatch' | 'idempotencyKey'): OpenAPIV3_1.ReferenceObject => ({
  $ref: `#/components/parameters/${name}`,
});

/** `$ref` to a shared header. */
export const header = (name: 'ContentRange' | 'ETag' | 'Location'): OpenAPIV3_1.ReferenceObject => ({
  $ref: `#/components/headers/${name}`,
});

/** A path parameter with a fixed set of values (the action of `/actions/{action}`). */
export const actionParam = (actions: readonly string[]): OpenAPIV3_1.ParameterObject => ({
  name: 'action',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: [...actions] },
});

/** Fastify's `/:id` syntax to OpenAPI's `/{id}`. */
export const openApiPath = (fastifyPath: string): string => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
