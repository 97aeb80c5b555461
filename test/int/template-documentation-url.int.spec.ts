import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * docs/adding-a-field.md, done for real: templates' `documentationUrl` was added by its declaration
 * (src/model/template.ts), one migration and the UI form. These tests show it everywhere the
 * walkthrough promises: REST bodies and views, OpenAPI, GraphQL, filters, sorting and the audit log.
 */
type Body = Record<string, unknown>;

let counter = 0;
const next = (): number => ++counter;

for (const target of databaseTargets()) {
  describe(`a template's documentationUrl on ${target.name}`, () => {
    let h: HttpHarness;

    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const create = async (extra: Body = {}): Promise<Body> => {
      const n = next();
      const response = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: `Docs ${n}`, template: `docs_${n}`, ...extra },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<Body>();
    };
    const list = async (query: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      h.inject({
        method: 'GET',
        url: '/api/templates',
        query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, JSON.stringify(v)])),
      });
    const graphql = async (query: string): Promise<Body> => {
      const response = await h.inject({ method: 'POST', url: '/api/graphql', payload: { query } });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Body>();
    };

    describe('when written over REST', () => {
      it('is stored and answered when given, and null when left out', async () => {
        const given = await create({ documentationUrl: 'https://docs.example.com/templates/pg' });
        expect(given.documentationUrl).toBe('https://docs.example.com/templates/pg');
        const omitted = await create();
        expect(omitted.documentationUrl).toBeNull();
        const read = await h.inject({ method: 'GET', url: `/api/templates/${String(given.id)}` });
        expect(read.json<Body>().documentationUrl).toBe('https://docs.example.com/templates/pg');
      });

      it('is refused with a 400 naming it when it is not an http(s) URL', async () => {
        const response = await h.inject({
          method: 'POST',
          url: '/api/templates',
          payload: { name: `Bad ${next()}`, template: `bad_${next()}`, documentationUrl: 'ftp://x' },
        });
        expect(response.statusCode).toBe(400);
        expect(response.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
          { field: 'documentationUrl', message: 'must be an http(s) URL' },
        ]);
      });

      it('changes and clears through PATCH', async () => {
        const template = await create();
        const set = await h.inject({
          method: 'PATCH',
          url: `/api/templates/${String(template.id)}`,
          payload: { documentationUrl: 'http://wiki/pg' },
        });
        expect(set.json<Body>().documentationUrl).toBe('http://wiki/pg');
        const cleared = await h.inject({
          method: 'PATCH',
          url: `/api/templates/${String(template.id)}`,
          payload: { documentationUrl: null },
        });
        expect(cleared.statusCode, cleared.body).toBe(200);
        expect(cleared.json<Body>().documentationUrl).toBeNull();
      });
    });

    describe('when listed', () => {
      it('filters by equality, null and __like, and sorts', async () => {
        const marker = `m${next()}`;
        const a = await create({ documentationUrl: `https://a.example/${marker}`, labels: [marker] });
        const b = await create({ documentationUrl: `https://b.example/${marker}`, labels: [marker] });
        const none = await create({ labels: [marker] });
        const ids = async (query: Record<string, unknown>): Promise<unknown[]> => {
          const response = await list(query);
          expect(response.statusCode, response.body).toBe(200);
          return response.json<Body[]>().map((t) => t.id);
        };
        expect(await ids({ filter: { documentationUrl: `https://a.example/${marker}` } })).toEqual([a.id]);
        expect(await ids({ filter: { labels: marker, documentationUrl: null } })).toEqual([none.id]);
        expect(await ids({ filter: { documentationUrl__like: `B.EXAMPLE/${marker}` } })).toEqual([b.id]);
        expect(await ids({ filter: { labels: marker, documentationUrl__ne: null }, sort: ['documentationUrl', 'DESC'] })).toEqual([
          b.id,
          a.id,
        ]);
      });
    });

    describe('when read through GraphQL', () => {
      it('is a nullable String field that filters and sorts like REST', async () => {
        const marker = `g${next()}`;
        const a = await create({ documentationUrl: `https://a.example/${marker}` });
        const answer = await graphql(
          `{ templates(filter: {documentationUrl__like: "${marker}"}, sort: ["documentationUrl", "ASC"]) { id documentationUrl } }`,
        );
        expect(answer).toEqual({ data: { templates: [{ id: a.id, documentationUrl: `https://a.example/${marker}` }] } });
        const type = await graphql('{ __type(name: "Template") { fields { name type { kind name } } } }');
        const fields = (type as { data: { __type: { fields: { name: string; type: { kind: string; name: string } }[] } } }).data.__type
          .fields;
        expect(fields.find((f) => f.name === 'documentationUrl')?.type).toEqual({ kind: 'SCALAR', name: 'String' });
      });
    });

    describe('when documented', () => {
      it('is in the OpenAPI request bodies and in the response schema', async () => {
        const document = (await h.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
          paths: Record<
            string,
            Record<
              string,
              {
                requestBody?: { content: Record<string, { schema: { properties: Body } }> };
                responses: Record<string, { content?: Record<string, { schema: { properties: Body } }> }>;
              }
            >
          >;
        }>();
        const post = document.paths['/api/templates']?.post;
        expect(post?.requestBody?.content['application/json']?.schema.properties).toHaveProperty('documentationUrl');
        const patch = document.paths['/api/templates/{id}']?.patch;
        expect(patch?.requestBody?.content['application/json']?.schema.properties).toHaveProperty('documentationUrl');
        const view = document.paths['/api/templates/{id}']?.get?.responses['200']?.content?.['application/json']?.schema.properties;
        expect(view?.documentationUrl).toEqual({
          type: ['string', 'null'],
          description: "Where the template's documentation lives (an http(s) URL), or null.",
        });
      });

      it('documents exactly the fields a REST answer has', async () => {
        const template = await create({ documentationUrl: 'https://docs.example/x' });
        const document = (await h.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
          paths: Record<
            string,
            Record<
              string,
              { responses: Record<string, { content?: Record<string, { schema: { properties: Body; required: string[] } }> }> }
            >
          >;
        }>();
        const schema = document.paths['/api/templates/{id}']?.get?.responses['200']?.content?.['application/json']?.schema;
        expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(Object.keys(template).sort());
        expect([...(schema?.required ?? [])].sort()).toEqual(Object.keys(template).sort());
      });
    });

    describe('when audited', () => {
      it('appears in the changes of the audit log', async () => {
        const template = await create();
        const patched = await h.inject({
          method: 'PATCH',
          url: `/api/templates/${String(template.id)}`,
          payload: { documentationUrl: 'https://docs.example/audited' },
        });
        expect(patched.statusCode).toBe(200);
        const position = patched.headers['x-position'];
        const response = await h.inject({
          method: 'GET',
          url: '/api/audit_log',
          headers: { 'x-min-position': String(position) },
          query: { filter: JSON.stringify({ entityId: template.id, action: 'TemplateUpdated' }) },
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json<Body[]>().map((e) => e.changes)).toEqual([{ changes: { documentationUrl: 'https://docs.example/audited' } }]);
      });
    });
  });
}
