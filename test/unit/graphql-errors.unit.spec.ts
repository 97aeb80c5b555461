import { buildSchema, GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { formatErrors } from '../../src/graphql/errors.js';
import { measureDocument, RELATION_LIST_ESTIMATE } from '../../src/graphql/limits.js';
import { isPublicDocument } from '../../src/graphql/operation.js';
import { buildSchemaDocument } from '../../src/graphql/sdl.js';

function capture() {
  const lines: { level: string; object: Record<string, unknown>; message: string }[] = [];
  const log = {
    warn: (object: object, message: string) => lines.push({ level: 'warn', object: object as Record<string, unknown>, message }),
    error: (object: object, message: string) => lines.push({ level: 'error', object: object as Record<string, unknown>, message }),
  };
  return { lines, context: { reply: { log, request: { id: 'req-1' } } } };
}

describe('GraphQL error formatting', () => {
  it('masks an unexpected error (no SQL, no stack) and logs it with the request id', () => {
    const { lines, context } = capture();
    const bug = new Error('syntax error at or near "SELEC" in SELECT password_hash FROM users');
    const result = formatErrors(
      { data: { templates: null }, errors: [new GraphQLError(bug.message, { originalError: bug, path: ['templates'] })] },
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(result.response.errors).toEqual([
      { message: 'Internal server error', path: ['templates'], extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' } },
    ]);
    expect(JSON.stringify(result.response)).not.toMatch(/SELEC|password_hash|at /);
    expect(lines).toEqual([
      {
        level: 'error',
        object: expect.objectContaining({ err: bug, requestId: 'req-1' }) as Record<string, unknown>,
        message: 'GraphQL resolver failed',
      },
    ]);
  });

  it('maps a lost database connection to SERVICE_UNAVAILABLE, masked', () => {
    const { context } = capture();
    const down = Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
    const result = formatErrors({ data: null, errors: [new GraphQLError(down.message, { originalError: down })] }, context);
    expect(result.response.errors[0]).toMatchObject({
      message: 'The service is temporarily unavailable; retry shortly.',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  });

  it('keeps domain errors with their code, details and field list', () => {
    const { context } = capture();
    const invalid = new AppError('VALIDATION', 'invalid list query: filter.nope: unknown', {
      errors: [{ field: 'filter.nope', message: 'unknown' }],
    });
    const forbidden = new AppError('FORBIDDEN', 'missing permission user:read', { details: { missingPermission: 'user:read' } });
    const result = formatErrors(
      { data: { templates: null }, errors: [new GraphQLError(invalid.message, { originalError: invalid, path: ['templates'] })] },
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(result.response.data).toEqual({ templates: null });
    expect(result.response.errors[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: [{ field: 'filter.nope', message: 'unknown' }],
    });
    const refused = formatErrors({ data: null, errors: [new GraphQLError(forbidden.message, { originalError: forbidden })] }, context);
    expect(refused.statusCode).toBe(200);
    expect(refused.response.errors[0]?.extensions).toEqual({ code: 'FORBIDDEN', missingPermission: 'user:read' });
  });

  it('answers a request error without data: 400 under graphql-response+json, 200 under application/json', () => {
    const invalid = new AppError('VALIDATION', 'query depth 12 exceeds the maximum of 10 (GRAPHQL_MAX_DEPTH)');
    const errors = [new GraphQLError(invalid.message, { originalError: invalid })];
    for (const [accept, status] of [
      ['application/graphql-response+json', 400],
      ['application/json', 200],
      [undefined, 200],
    ] as const) {
      const { context } = capture();
      const result = formatErrors({ errors }, { reply: { ...context.reply, request: { id: 'req-1', headers: { accept } } } });
      expect(result.statusCode, accept).toBe(status);
      expect(result.response).not.toHaveProperty('data');
    }
  });
});

describe('GraphQL document analysis', () => {
  const schema = buildSchema(buildSchemaDocument());

  it('weights root lists by their page size and relation lists by the estimate', () => {
    const measured = measureDocument(schema, parse('{ resources(range: [0, 50]) { id integrationIds { name } } }'), {}, 100);
    // resources: 1 + 50 × (id 1 + integrationIds (1 + 10 × name 1))
    expect(measured.cost).toBe(1 + 50 * (1 + 1 + RELATION_LIST_ESTIMATE * 1));
    expect(measured.depth).toBe(3);
    const fromVariable = measureDocument(schema, parse('query ($r: [Int!]) { templates(range: $r) { id } }'), { r: [0, 7] }, 100);
    expect(fromVariable.cost).toBe(1 + 7);
    expect(measureDocument(schema, parse('{ templates { id } }'), {}, 100).cost).toBe(101);
  });

  it('counts depth and aliases through fragments', () => {
    const measured = measureDocument(schema, parse('{ a: templates { ...F } } fragment F on Template { b: executors { c: id } }'), {}, 100);
    expect(measured).toMatchObject({ depth: 3, aliases: 3 });
  });

  it('costs introspection by what it answers in this schema and counts its aliases, but not its depth', () => {
    const types = Object.keys(schema.getTypeMap()).length;
    // __schema 1 + types 1 + one name per type.
    expect(measureDocument(schema, parse('{ __schema { types { name } } }'), {}, 100)).toEqual({
      depth: 0,
      aliases: 0,
      cost: 2 + types,
      subscriptionCost: 0,
    });
    expect(
      measureDocument(schema, parse('{ a: __schema { types { name } } b: __schema { types { name } } c: __typename }'), {}, 100),
    ).toEqual({
      depth: 0,
      aliases: 3,
      cost: 2 * (2 + types) + 1,
      subscriptionCost: 0,
    });
    const deep = measureDocument(schema, parse('{ __schema { types { fields { type { ofType { ofType { name } } } } } } }'), {}, 100);
    expect(deep.depth).toBe(0);
    expect(deep.cost).toBeGreaterThan(types * 4);
    // Beside an ordinary selection, introspection adds its cost but not its depth.
    expect(measureDocument(schema, parse('{ templates { id __typename } }'), {}, 100)).toEqual({
      depth: 2,
      aliases: 0,
      cost: 1 + 100 * 2,
      subscriptionCost: 0,
    });
  });

  it('measures subscriptions like queries, and what one change costs them', () => {
    const measured = measureDocument(
      schema,
      parse('subscription { changes { position a: actor { id } b: actor { id identifier } } }'),
      {},
      100,
    );
    // changes 1 + position 1 + actor 1 + id 1 + actor 1 + id 1 + identifier 1.
    expect(measured).toEqual({ depth: 3, aliases: 2, cost: 7, subscriptionCost: 7 });
  });

  it('treats only introspection, enabledAuthProviders and serviceAccountToken as public', () => {
    expect(isPublicDocument(parse('{ __schema { types { name } } enabledAuthProviders { key } }'))).toBe(true);
    expect(isPublicDocument(parse('mutation { serviceAccountToken(identifier: "a", password: "b") { token } }'))).toBe(true);
    expect(isPublicDocument(parse('{ ...F } fragment F on Query { me { id } }'))).toBe(false);
    expect(isPublicDocument(parse('query A { __typename } query B { templates { id } }'))).toBe(false);
  });
});
