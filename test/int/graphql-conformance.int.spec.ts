import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../src/cli/seed/catalog.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import { ROOT_ENTITIES } from '../../src/graphql/roots.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Json = Record<string, unknown>;

interface GraphBody {
  readonly data?: Json | null;
  readonly errors?: readonly { message: string; path?: readonly (string | number)[]; extensions: Json }[];
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/**
 * GraphQL over HTTP as clients written from the spec and the seed expect it: the two media types
 * and their status codes, `null` parameters, the seed's nullable `id: UUID`, and argument errors
 * as field errors that leave sibling fields their data. (graphql-http-audit.int.spec.ts runs the
 * foundation's audit; this file pins the behaviour behind it.)
 */
for (const target of databaseTargets()) {
  describe(`GraphQL-over-HTTP conformance on ${target.name}`, () => {
    let harness: HttpHarness;

    const post = (
      body: Json,
      headers: Record<string, string> = {},
      token: string | null = harness.adminToken,
    ): Promise<LightMyRequestResponse> =>
      harness.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
        payload: JSON.stringify(body),
      });
    const asGraphqlResponse = { accept: GRAPHQL_RESPONSE };

    beforeAll(async () => {
      harness = await openHttpApp(target);
      const summary = await seedCatalog(harness.services, { resources: 5, templates: 2, executors: 1, concurrency: 4, prefix: 'conf' });
      await waitForProjections(harness.services, summary.head);
    }, 120_000);
    afterAll(() => harness.close());

    describe('media types and status codes', () => {
      it('answers application/json without an Accept header, or when application/json ranks higher', async () => {
        for (const accept of [undefined, 'application/json', '*/*', `application/json, ${GRAPHQL_RESPONSE};q=0.5`]) {
          const response = await post({ query: '{ templatesCount }' }, accept === undefined ? {} : { accept });
          expect(response.statusCode).toBe(200);
          expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        }
      });

      it(`answers ${GRAPHQL_RESPONSE} when the client accepts it`, async () => {
        for (const accept of [GRAPHQL_RESPONSE, `${GRAPHQL_RESPONSE}, application/json`, `application/json;q=0.9, ${GRAPHQL_RESPONSE}`]) {
          const response = await post({ query: '{ templatesCount }' }, { accept });
          expect(response.statusCode).toBe(200);
          expect(response.headers['content-type']).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
          expect(response.json()).toEqual({ data: { templatesCount: 2 } });
        }
      });

      it('answers a request error (parse, validation, variables, limits) 400 without data under graphql-response+json, 200 under application/json', async () => {
        const requestErrors: [Json, string][] = [
          [{ query: '{ templates { id }' }, 'GRAPHQL_PARSE_FAILED'],
          [{ query: '{ templates { nope } }' }, 'GRAPHQL_VALIDATION_FAILED'],
          [{ query: 'query ($id: UUID!) { template(id: $id) { id } }', variables: { id: 5 } }, 'BAD_USER_INPUT'],
          [{ query: `{ templates { ${'parents { '.repeat(10)}id${' }'.repeat(10)} } }` }, 'LIMIT_EXCEEDED'],
        ];
        for (const [body, code] of requestErrors) {
          const strict = await post(body, asGraphqlResponse);
          expect(strict.statusCode, strict.body).toBe(400);
          expect(strict.headers['content-type']).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
          expect(strict.json<GraphBody>()).not.toHaveProperty('data');
          expect(strict.json<GraphBody>().errors?.[0]?.extensions.code).toBe(code);
          const legacy = await post(body);
          expect(legacy.statusCode, legacy.body).toBe(200);
          expect(legacy.json<GraphBody>()).not.toHaveProperty('data');
          expect(legacy.json<GraphBody>().errors?.[0]?.extensions.code).toBe(code);
        }
      });

      it('answers a malformed HTTP request 400 under either media type', async () => {
        for (const headers of [{}, asGraphqlResponse]) {
          for (const [body, message] of [
            [{ query: '{ me { id } }', extensions: 'x' }, 'extensions must be a JSON object'],
            [{ query: '{ me { id } }', variables: [1] }, 'variables must be a JSON object'],
            [{ query: '{ me { id } }', operationName: true }, 'operationName must be a string'],
          ] as const) {
            const response = await post(body, headers);
            expect(response.statusCode).toBe(400);
            expect(response.json<GraphBody>().errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST' } });
          }
        }
      });

      it('keeps the unauthenticated answer exactly as the seed gives it, under either media type', async () => {
        for (const headers of [{}, asGraphqlResponse]) {
          const response = await post({ query: '{ templates { id } }' }, headers, null);
          expect(response.statusCode).toBe(200);
          expect(response.json()).toEqual({
            data: null,
            errors: [
              {
                message: 'Not authenticated. Please provide a valid bearer token in the Authorization header.',
                extensions: { code: 'UNAUTHENTICATED' },
              },
            ],
          });
        }
      });

      it('accepts null for extensions, variables and operationName', async () => {
        for (const headers of [{}, asGraphqlResponse]) {
          const response = await post({ query: '{ templatesCount }', extensions: null, variables: null, operationName: null }, headers);
          expect(response.statusCode).toBe(200);
          expect(response.json()).toEqual({ data: { templatesCount: 2 } });
        }
      });
    });

    describe('single queries take id: UUID, as the seed writes them', () => {
      const singles = ROOT_ENTITIES.filter((root) => root.single !== undefined);

      it('every single query validates with $id: UUID and $id: UUID!, and answers null for a null or absent id', async () => {
        expect(singles).toHaveLength(14);
        for (const root of singles) {
          const field = root.single ?? '';
          const [any] =
            (await post({ query: `{ ${root.plural}(range: [0, 1]) { id } }` })).json<{ data: Record<string, { id: string }[]> }>().data[
              root.plural
            ] ?? [];
          for (const type of ['UUID', 'UUID!']) {
            const found = await post({
              query: `query ($id: ${type}) { ${field}(id: $id) { id } }`,
              variables: { id: any?.id ?? '00000000-0000-4000-8000-000000000000' },
            });
            expect(found.json(), `${field} with $id: ${type}`).toEqual({ data: { [field]: any ? { id: any.id } : null } });
          }
          expect((await post({ query: `query ($id: UUID) { ${field}(id: $id) { id } }`, variables: { id: null } })).json()).toEqual({
            data: { [field]: null },
          });
          expect((await post({ query: `query ($id: UUID) { ${field}(id: $id) { id } }` })).json()).toEqual({ data: { [field]: null } });
          expect((await post({ query: `{ ${field} { id } }` })).json()).toEqual({ data: { [field]: null } });
        }
      });
    });

    describe('argument errors are field errors', () => {
      it('a bad filter, sort or range nulls its own field; siblings keep their data', async () => {
        const response = await post({
          query:
            '{ resources(filter: {nosuchfield: "x"}) { id } templates { id } badSort: templates(sort: ["name", "up"]) { id } ' +
            'resourcesCount(filter: {state: 5}) executorsCount }',
        });
        expect(response.statusCode).toBe(200);
        const body = response.json<GraphBody>();
        expect(body.data).toMatchObject({ resources: null, badSort: null, resourcesCount: null, executorsCount: 1 });
        expect(body.data?.templates).toHaveLength(2);
        type FieldError = NonNullable<GraphBody['errors']>[number];
        const byPath: Record<string, FieldError> = Object.fromEntries(
          (body.errors ?? []).map((error) => [error.path?.join('.') ?? '', error]),
        );
        expect(Object.keys(byPath).sort()).toEqual(['badSort', 'resources', 'resourcesCount']);
        for (const error of Object.values(byPath)) expect(error.extensions.code).toBe('BAD_USER_INPUT');
        expect(byPath.resources?.extensions.errors).toEqual([expect.objectContaining({ field: 'filter.nosuchfield' })]);
        expect(byPath.badSort?.extensions.errors).toEqual([expect.objectContaining({ field: 'sort' })]);
        expect(byPath.resourcesCount?.extensions.errors).toEqual([expect.objectContaining({ field: 'filter.state' })]);
      });

      it('is the same under graphql-response+json: 200, since the response has data', async () => {
        const response = await post({ query: '{ resources(range: [0, 5000]) { id } templatesCount }' }, asGraphqlResponse);
        expect(response.statusCode).toBe(200);
        const body = response.json<GraphBody>();
        expect(body.data).toEqual({ resources: null, templatesCount: 2 });
        expect(body.errors?.[0]).toMatchObject({ path: ['resources'], extensions: { code: 'BAD_USER_INPUT' } });
      });

      it('a FORBIDDEN list is a field error too', async () => {
        const token = await harness.serviceAccount('conf-resources-only', [], ['resource:read']);
        const body = (await post({ query: '{ templates { id } resourcesCount }' }, {}, token)).json<GraphBody>();
        expect(body.data).toEqual({ templates: null, resourcesCount: 5 });
        expect(body.errors?.[0]).toMatchObject({ path: ['templates'], extensions: { code: 'FORBIDDEN' } });
      });
    });
  });
}
