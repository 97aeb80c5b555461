import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * Generated documents and variables never make the GraphQL endpoint answer an internal error, and a
 * document answers the same on every run (Mercurius compiles a document on its second run, through a
 * different path): each case is sent twice and both answers must be equal.
 */
const DOCUMENTS = [
  'query Q($s: [String!]) { templates(sort: $s) { id } }',
  'query Q($f: JSON) { resources(filter: $f) { id name state } }',
  'query Q($r: [Int!]) { executors(range: $r) { id name } }',
  'query Q($id: UUID!) { template(id: $id) { id name } }',
  'query Q($id: UUID) { resource(id: $id) { id } }',
  'query Q($n: Int) { templates(range: [0, $n]) { id } }',
  'query Q($f: JSON, $s: [String!], $r: [Int!]) { templates(filter: $f, sort: $s, range: $r) { id name createdAt executors { name } } }',
  'query Q($f: JSON) { templatesCount(filter: $f) resourcesCount(filter: $f) }',
  'query Q($f: JSON, $s: [String!]) { auditLog(filter: $f, sort: $s) { id action } }',
];

const variableValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
  fc.array(fc.integer({ min: -5, max: 2_000_000_000 }), { maxLength: 3 }),
  fc.uuid(),
  fc.dictionary(
    fc.constantFrom('name', 'state', 'name__like', 'createdAt__gt', 'id__in', 'nope', '__proto__', 'q'),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  ),
);

const request = fc.record({
  query: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...DOCUMENTS) }, { weight: 1, arbitrary: fc.string({ maxLength: 60 }) }),
  variables: fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.dictionary(fc.constantFrom('s', 'f', 'r', 'id', 'n', 'x'), variableValue, { maxKeys: 4 }),
  ),
});

for (const target of oneDatabaseTarget()) {
  describe(`GraphQL under generated input on ${target.name}`, () => {
    let h: HttpHarness;

    beforeAll(async () => {
      h = await openHttpApp(target);
      await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Fuzz', template: 'fuzz' } });
    });
    afterAll(async () => h.close());

    it('answers bad variables with the same request error on the first, the compiling and later runs', async () => {
      const payload = { query: 'query Y($s: [String!]) { templates(sort: $s) { id } }', variables: { s: 1 } };
      const answers = [];
      for (let run = 0; run < 3; run++) answers.push(await h.inject({ method: 'POST', url: '/api/graphql', payload }));
      for (const answer of answers) {
        // A request error: 200 under application/json, and no data entry.
        expect(answer.statusCode).toBe(200);
        expect(answer.json()).toEqual({
          errors: [
            {
              message: 'Variable "$s" got invalid value 1; String cannot represent a non string value: 1',
              locations: [{ line: 1, column: 9 }],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            },
          ],
        });
      }
    });

    it('never answers an internal error, and answers a document the same on every run', async () => {
      await fc.assert(
        fc.asyncProperty(request, async ({ query, variables }) => {
          const payload = variables === undefined ? { query } : { query, variables };
          const first = await h.inject({ method: 'POST', url: '/api/graphql', payload });
          const second = await h.inject({ method: 'POST', url: '/api/graphql', payload });
          for (const answer of [first, second]) {
            expect(answer.statusCode, answer.body).toBeLessThan(500);
            expect(answer.body).not.toContain('INTERNAL_SERVER_ERROR');
          }
          expect([second.statusCode, second.json<unknown>()]).toEqual([first.statusCode, first.json<unknown>()]);
        }),
        { numRuns: 700, seed: 20261124 },
      );
    });
  });
}
