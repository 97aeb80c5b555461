import type { OpenAPIV3_1 } from 'openapi-types';
import { jsonResponse, type Paths } from './components.js';

/** A GraphQL response: `data` and, on failure, `errors` with `extensions.code` (see docs/api/graphql.md). */
const graphqlResponse: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  properties: {
    data: { type: ['object', 'null'], description: 'The requested data; null when the request was refused.' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message'],
        properties: {
          message: { type: 'string' },
          path: { type: 'array', items: { type: ['string', 'integer'] } },
          extensions: { type: 'object', properties: { code: { type: 'string' } } },
        },
      },
    },
  },
};

const responses = {
  '200': jsonResponse('The GraphQL result (authentication and permission errors included, in `errors`).', graphqlResponse),
  '400': jsonResponse('A document refused before execution: syntax, validation, limits or bad input.', graphqlResponse),
};

/**
 * The GraphQL endpoint, listed so the REST docs point at it; its own schema is the GraphQL one
 * (introspection, GraphiQL). Public at the HTTP level: each operation checks the bearer token itself.
 */
export function graphqlPaths(): Paths {
  const tags = ['GraphQL'];
  return {
    '/api/graphql': {
      get: {
        tags,
        operationId: 'graphql_get',
        summary: 'Run a query from the URL, or open GraphiQL in a browser',
        description:
          'With `Accept: text/html` and no `query`, serves GraphiQL (all assets from this service). Otherwise runs `query` (with ' +
          'optional JSON `variables` and `operationName`); mutations need POST.',
        security: [],
        parameters: [
          { name: 'query', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'variables', in: 'query', required: false, description: 'JSON-encoded object.', schema: { type: 'string' } },
          { name: 'operationName', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: { ...responses, '405': jsonResponse('A mutation sent with GET.', graphqlResponse) },
      },
      post: {
        tags,
        operationId: 'graphql_post',
        summary: 'Run a GraphQL query or mutation',
        description:
          'Every operation needs `Authorization: Bearer <token>` except introspection, `enabledAuthProviders` and the ' +
          '`serviceAccountToken` mutation.',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['query'],
                properties: {
                  query: { type: 'string' },
                  variables: { type: ['object', 'null'] },
                  operationName: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
        responses: { ...responses, '413': jsonResponse('The body exceeds 1 MiB.', graphqlResponse) },
      },
    },
  };
}
