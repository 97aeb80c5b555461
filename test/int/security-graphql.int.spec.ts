import type { LightMyRequestResponse } from 'fastify';
import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureDocument } from '../../src/graphql/limits.js';
import { buildSchemaDocument } from '../../src/graphql/sdl.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { parsePrometheusText, seriesValue } from '../support/prometheus-text.js';

// The attack audit's M2: anyone without a token could make the server do seconds of work with
// aliased introspection. Introspection is now measured like any selection, public documents have a
// tighter budget, and answers are capped in size.

interface GraphBody {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly { message: string; extensions: Record<string, unknown> }[];
}

/** GraphiQL's own schema query, with every option it may send. */
const GRAPHIQL_INTROSPECTION = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});
const SMALL_INTROSPECTION = '__schema { types { name fields { name args { name } } } }';
/** The audit's document: 200 aliased introspection selections (about 11 KB here). */
const AUDIT_DOCUMENT = `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: ${SMALL_INTROSPECTION}`).join(' ')} }`;

const schema = buildSchema(buildSchemaDocument());
const costOf = (query: string): number => measureDocument(schema, parse(query), {}, 100).cost;

/** A request error: refused before execution, so no `data` entry at all (400 under graphql-response+json). */
function expectRefusedBeforeExecution(response: LightMyRequestResponse, message: string | RegExp, limit: string): void {
  expect(response.statusCode, response.body).toBe(400);
  const body = response.json<GraphBody>();
  expect(body).not.toHaveProperty('data');
  expect(body.errors).toHaveLength(1);
  expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit });
  if (typeof message === 'string') expect(body.errors?.[0]?.message).toBe(message);
  else expect(body.errors?.[0]?.message).toMatch(message);
}

for (const target of databaseTargets()) {
  describe(`M2: introspection is measured like any selection, on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const post = (query: string, token: string | null): Promise<LightMyRequestResponse> =>
      h.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { accept: 'application/graphql-response+json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
        payload: { query },
      });

    it("refuses the audit's 200-alias introspection document before execution, with or without a token", async () => {
      for (const token of [null, h.adminToken]) {
        expectRefusedBeforeExecution(
          await post(AUDIT_DOCUMENT, token),
          'query uses 200 aliases; the maximum is 30 (GRAPHQL_MAX_ALIASES)',
          'aliases',
        );
      }
    });

    it('counts aliased __typename and __type like any aliased field', async () => {
      const typenames = `{ ${Array.from({ length: 31 }, (_, i) => `t${i}: __typename`).join(' ')} }`;
      expectRefusedBeforeExecution(
        await post(typenames, null),
        'query uses 31 aliases; the maximum is 30 (GRAPHQL_MAX_ALIASES)',
        'aliases',
      );
      const types = `{ ${Array.from({ length: 31 }, (_, i) => `t${i}: __type(name: "Query") { name }`).join(' ')} }`;
      expectRefusedBeforeExecution(await post(types, null), 'query uses 31 aliases; the maximum is 30 (GRAPHQL_MAX_ALIASES)', 'aliases');
    });

    it('costs introspection by what it answers: 30 aliased full schema queries are refused, signed in or not', async () => {
      const body = GRAPHIQL_INTROSPECTION.replace(/^\s*query IntrospectionQuery \{\s*__schema/, '').replace(/\}\s*fragment[\s\S]*$/, '');
      const fragments = GRAPHIQL_INTROSPECTION.slice(GRAPHIQL_INTROSPECTION.indexOf('fragment'));
      const thirty = `{ ${Array.from({ length: 30 }, (_, i) => `s${i}: __schema ${body}`).join(' ')} } ${fragments}`;
      expect(costOf(thirty)).toBeGreaterThan(80_000);
      expectRefusedBeforeExecution(await post(thirty, null), /^query cost \d+ exceeds the maximum of 80000 \(GRAPHQL_MAX_COST\)/, 'cost');
      expectRefusedBeforeExecution(
        await post(thirty, h.adminToken),
        /^query cost \d+ exceeds the maximum of 80000 \(GRAPHQL_MAX_COST\)/,
        'cost',
      );
    });

    it("answers GraphiQL's full introspection query without a token: it fits the public budget", async () => {
      expect(costOf(GRAPHIQL_INTROSPECTION)).toBeLessThanOrEqual(60_000);
      const response = await post(GRAPHIQL_INTROSPECTION, null);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
      const body = response.json<GraphBody>();
      expect(body.errors).toBeUndefined();
      expect(body.data).toHaveProperty('__schema');
    });

    it('computes an anonymous introspection answer once: the same request again is answered from memory, not executed', async () => {
      const executed = async (): Promise<number> => {
        const { body } = await h.services.metrics.render();
        return seriesValue(parsePrometheusText(body), 'infraledger_graphql_operation_duration_seconds', { operation: 'query' }) ?? 0;
      };
      const document = `${GRAPHIQL_INTROSPECTION} `; // a text of its own, so no earlier answer is kept for it
      const before = await executed();
      const first = await post(document, null);
      expect(await executed()).toBe(before + 1);
      const again = await post(document, null);
      expect(again.statusCode).toBe(200);
      expect(again.body).toBe(first.body);
      expect(again.headers['content-type']).toBe(first.headers['content-type']);
      expect(await executed()).toBe(before + 1);
      // Signed in, the request executes as any other.
      await post(document, h.adminToken);
      expect(await executed()).toBe(before + 2);
    });

    it('gives a document without a valid token the tighter GRAPHQL_PUBLIC_MAX_COST, and the same document to a signed-in caller', async () => {
      // The full schema query plus small introspections until the cost lies between the two budgets.
      const fragments = GRAPHIQL_INTROSPECTION.slice(GRAPHIQL_INTROSPECTION.indexOf('fragment'));
      const full = GRAPHIQL_INTROSPECTION.slice(0, GRAPHIQL_INTROSPECTION.indexOf('fragment'))
        .replace(/^\s*query IntrospectionQuery \{/, '')
        .replace(/\}\s*$/, '');
      let extra = 0;
      const documentWith = (n: number): string =>
        `query Between { ${full} ${Array.from({ length: n }, (_, i) => `x${i}: ${SMALL_INTROSPECTION}`).join(' ')} } ${fragments}`;
      while (costOf(documentWith(extra)) <= 60_000 && extra < 100) extra += 1;
      const between = documentWith(extra);
      expect(costOf(between)).toBeLessThanOrEqual(80_000);

      expectRefusedBeforeExecution(
        await post(between, null),
        /^query cost \d+ exceeds the maximum of 60000 for a request without a valid token \(GRAPHQL_PUBLIC_MAX_COST\); sign in, or ask for less/,
        'public_cost',
      );
      // A bad token is no token: public documents ignore it, and get the public budget.
      expectRefusedBeforeExecution(await post(between, 'not-a-token'), /\(GRAPHQL_PUBLIC_MAX_COST\)/, 'public_cost');
      const signedIn = await post(between, h.adminToken);
      expect(signedIn.statusCode).toBe(200);
      expect(signedIn.json<GraphBody>().errors).toBeUndefined();
    });
  });
}

// The size bound does not depend on the store: one app on PGlite, with small bounds so that a
// full introspection (about 230 KB with descriptions, 140 KB without) crosses both.
const [pglite] = databaseTargets();
if (pglite) {
  describe('M2: answers are capped in size, tighter without a token', () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(pglite, { env: { GRAPHQL_MAX_RESPONSE_BYTES: '180000', GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES: '50000' } });
    });
    afterAll(async () => h.close());

    const post = (query: string, token: string | null): Promise<LightMyRequestResponse> =>
      h.app.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
        payload: { query },
      });

    const tooLarge = (response: LightMyRequestResponse, limit: number, setting: string): void => {
      expect(response.statusCode).toBe(200);
      const body = response.json<GraphBody>();
      expect(body.data).toBeNull();
      expect(body.errors?.[0]?.extensions).toEqual({ code: 'LIMIT_EXCEEDED', limit: 'response_size' });
      expect(body.errors?.[0]?.message).toMatch(
        new RegExp(
          `^the answer is \\d+ bytes; the maximum is ${limit} \\(${setting}\\); ask for fewer fields, smaller pages or fewer aliases$`,
        ),
      );
      expect(Number(response.headers['content-length'])).toBeLessThan(1000);
    };

    it('replaces an answer over GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES without a token, and over GRAPHQL_MAX_RESPONSE_BYTES with one', async () => {
      tooLarge(await post(GRAPHIQL_INTROSPECTION, null), 50_000, 'GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES');
      tooLarge(await post(GRAPHIQL_INTROSPECTION, h.adminToken), 180_000, 'GRAPHQL_MAX_RESPONSE_BYTES');
    });

    it('answers in full below the bound', async () => {
      const small = await post('{ __schema { types { name } } }', null);
      expect(small.json<GraphBody>().errors).toBeUndefined();
      const signedIn = await post(getIntrospectionQuery({ descriptions: false }), h.adminToken);
      expect(signedIn.body.length).toBeGreaterThan(50_000);
      expect(signedIn.json<GraphBody>().errors).toBeUndefined();
    });
  });
}
