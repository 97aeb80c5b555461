import Fastify from 'fastify';
import mercurius from 'mercurius';
import { describe, expect, it } from 'vitest';
import { wantsGraphqlResponse } from '../../src/graphql/media-type.js';
import { registerRequestShape } from '../../src/graphql/request-shape.js';
import { authorizationOf } from '../../src/graphql/subscriptions.js';

describe('the answer’s media type (GraphQL over HTTP)', () => {
  const wants = (accept?: string) => wantsGraphqlResponse({ headers: accept === undefined ? {} : { accept } });

  it('is application/graphql-response+json when the client ranks it at least as high as application/json', () => {
    expect(wants('application/graphql-response+json')).toBe(true);
    expect(wants('application/graphql-response+json, application/json')).toBe(true);
    expect(wants('application/json;q=0.9, application/graphql-response+json')).toBe(true);
    expect(wants('application/graphql-response+json, application/json, multipart/mixed')).toBe(true);
  });

  it('is application/json otherwise: no Accept, wildcards, or application/json ranked higher', () => {
    expect(wants()).toBe(false);
    expect(wants('*/*')).toBe(false);
    expect(wants('application/json')).toBe(false);
    expect(wants('application/json, application/graphql-response+json;q=0.5')).toBe(false);
    expect(wants('application/graphql-response+json;q=0')).toBe(false);
  });
});

describe('the credential in a graphql-ws connection_init payload', () => {
  it('takes Authorization (either case, or under headers) or a bare token', () => {
    expect(authorizationOf({ Authorization: 'Bearer a' })).toBe('Bearer a');
    expect(authorizationOf({ authorization: 'Bearer b' })).toBe('Bearer b');
    expect(authorizationOf({ headers: { Authorization: 'Bearer c' } })).toBe('Bearer c');
    expect(authorizationOf({ token: 'd' })).toBe('Bearer d');
  });

  it('finds none in anything else', () => {
    for (const payload of [undefined, null, 'Bearer x', {}, { Authorization: '' }, { Authorization: 5 }, { token: '' }])
      expect(authorizationOf(payload)).toBeUndefined();
  });
});

describe('a 200 answer’s text', () => {
  it('is the result as JSON: an error inside a list names the item by its index, a number, as GraphQL specifies', async () => {
    const app = Fastify();
    await app.register(async (scope) => {
      registerRequestShape(scope, '/graphql');
      await scope.register(mercurius, {
        schema: 'type Item { n: Int, bad: Int } type Query { items: [Item] }',
        resolvers: { Query: { items: () => [{ n: 1 }, { n: 2 }] } },
      });
      scope.graphql.defineResolvers({
        Item: {
          bad: (item: { n: number }) => {
            if (item.n === 2) throw new Error('no');
            return 0;
          },
        },
      });
    });
    try {
      const response = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ items { n bad } }' } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        data: {
          items: [
            { n: 1, bad: 0 },
            { n: 2, bad: null },
          ],
        },
        errors: [{ message: 'no', locations: [{ line: 1, column: 13 }], path: ['items', 1, 'bad'] }],
      });
    } finally {
      await app.close();
    }
  });
});
