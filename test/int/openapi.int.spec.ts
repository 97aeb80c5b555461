import type { OpenAPIV3_1 } from 'openapi-types';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LIFECYCLE_ACTIONS } from '../../src/model/lifecycle.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import type { OpenApiDocument, Operation } from '../../src/http/openapi/components.js';
import { createBodySchema, patchBodySchema } from '../../src/model/entity.js';
import { integrationConfigurationSchemas, integrationEntity } from '../../src/model/integration.js';
import { resourceEntity } from '../../src/model/resource.js';
import { templateEntity } from '../../src/model/template.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
type Method = (typeof METHODS)[number];

/** Every route in `app.printRoutes({ commonPrefix: false })`: its full path and methods (HEAD left out). */
function registeredRoutes(tree: string): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?$/u.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const methods = (match[3] ?? '')
      .split(',')
      .map((m) => m.trim().toLowerCase())
      .filter((m) => m !== '' && m !== 'head');
    if (methods.length > 0) routes.push({ path: stack.join(''), methods });
  }
  return routes;
}

const toOpenApi = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
/** The docs plugin's own routes (`/api/docs`, `/api/docs/json`, its static wildcard `/api/docs*`…). */
const isDocsRoute = (path: string): boolean => /^\/api\/docs(?:$|[/*])/.test(path);
/**
 * GraphiQL's static assets (`/api/graphql/assets/*`, hashed file names), not an API operation. The
 * route tree prints that wildcard as `/api/graphql*` (a static segment without a handler is elided).
 */
const isGraphiqlAsset = (path: string): boolean => path === '/api/graphql*' || path.startsWith('/api/graphql/assets');

function operation(document: OpenApiDocument, path: string, method: Method): Operation {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
  return found;
}

/** One response of an operation (undefined when not documented). */
const responseOf = (document: OpenApiDocument, path: string, method: Method, status: string): unknown =>
  operation(document, path, method).responses?.[status];

/** The JSON Schema of an operation's `application/json` request body (not a `$ref`). */
function bodySchema(document: OpenApiDocument, path: string, method: Method): OpenAPIV3_1.SchemaObject {
  const body = operation(document, path, method).requestBody;
  if (!body || '$ref' in body) throw new Error(`${method.toUpperCase()} ${path} has no inline request body`);
  const schema = body.content['application/json']?.schema;
  if (!schema || '$ref' in schema) throw new Error(`${method.toUpperCase()} ${path} has no inline JSON schema`);
  return schema;
}

/** The keys of an object schema (the declared bodies are typed by their output, but are objects). */
const keysOf = (schema: z.ZodType): string[] => {
  expect(schema).toBeInstanceOf(z.ZodObject);
  return Object.keys((schema as z.ZodObject).shape).sort();
};
const propertiesOf = (schema: OpenAPIV3_1.SchemaObject): string[] => Object.keys(schema.properties ?? {}).sort();

const target = databaseTargets()[0];
if (!target) throw new Error('no database target');

describe(`OpenAPI document and docs on ${target.name}`, () => {
  let h: HttpHarness;
  let document: OpenApiDocument;

  beforeAll(async () => {
    h = await openHttpApp(target);
    // No Authorization header: both must be public.
    const response = await h.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    document = response.json<OpenApiDocument>();
  }, 60_000);

  afterAll(async () => {
    await h.close();
  });

  it('is an OpenAPI 3 document with info, paths, the Problem component and bearer security', () => {
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(document.info.title).toBe('infraledger');
    expect(typeof document.info.version).toBe('string');
    expect(Object.keys(document.paths).length).toBeGreaterThan(20);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const problem = document.components?.schemas?.Problem;
    expect(problem && propertiesOf(problem)).toEqual([
      'code',
      'detail',
      'error_code',
      'errors',
      'message',
      'requestId',
      'status',
      'title',
      'type',
    ]);
    // Served as built, so it is plain JSON (no functions, no undefined) and stable.
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    // Relative, so "Try it out" works at whatever address the docs were opened; and nothing pre-filled
    // that would narrow a real catalog to nothing.
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) as string }]);
    expect(document.components?.parameters?.filter).not.toHaveProperty('example');
  });

  it('documents every route the app registered under /api, and nothing it did not', () => {
    const routes = registeredRoutes(h.app.printRoutes({ commonPrefix: false })).filter(
      (r) => r.path.startsWith('/api/') && !isDocsRoute(r.path) && !isGraphiqlAsset(r.path),
    );
    expect(routes.length).toBeGreaterThan(30);
    const registered = new Set<string>();
    for (const route of routes) {
      for (const method of route.methods) {
        registered.add(`${method} ${toOpenApi(route.path)}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const method of METHODS) if (item[method]) documented.add(`${method} ${path}`);
    }
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d))).toEqual([]);
  });

  it("takes request bodies from the zod schemas the routes validate with (the declarations' bodies)", () => {
    expect(propertiesOf(bodySchema(document, '/api/templates', 'post'))).toEqual(keysOf(createBodySchema(templateEntity)));
    expect(propertiesOf(bodySchema(document, '/api/templates/{id}', 'patch'))).toEqual(keysOf(patchBodySchema(templateEntity)));
    expect(propertiesOf(bodySchema(document, '/api/integrations', 'post'))).toEqual(keysOf(createBodySchema(integrationEntity)));
    expect(propertiesOf(bodySchema(document, '/api/integrations/{id}', 'patch'))).toEqual(keysOf(patchBodySchema(integrationEntity)));
    expect(propertiesOf(bodySchema(document, '/api/resources', 'post'))).toEqual(keysOf(createBodySchema(resourceEntity)));
    expect(propertiesOf(bodySchema(document, '/api/resources/{id}', 'patch'))).toEqual(keysOf(patchBodySchema(resourceEntity)));

    // Defaults make fields optional; strict objects refuse unknown keys.
    const template = bodySchema(document, '/api/templates', 'post');
    expect(template.required).toEqual(['name', 'template']);
    expect(template.additionalProperties).toBe(false);
    expect(bodySchema(document, '/api/resources', 'post').required).toEqual(['name', 'templateId']);
    expect(bodySchema(document, '/api/templates/{id}', 'patch').required).toBeUndefined();

    // Provider-specific configuration: one schema per provider, titled with it.
    const configuration = bodySchema(document, '/api/integrations', 'post').properties?.configuration as OpenAPIV3_1.SchemaObject;
    expect(configuration.anyOf?.map((s) => ('title' in s ? s.title : undefined))).toEqual(Object.keys(integrationConfigurationSchemas));
    expect(configuration.description).toContain('aws → awsAccessKeyId');

    // Every create and update has a JSON body.
    for (const [path, item] of Object.entries(document.paths)) {
      if (
        /^\/api\/(templates|integrations|secrets|workspaces|source_codes|source_code_versions|storages|executors|resources|users|auth_providers)$/.test(
          path,
        )
      ) {
        expect(propertiesOf(bodySchema(document, path, 'post')).length, path).toBeGreaterThan(0);
        expect(item.post && responseOf(document, path, 'post', '201'), path).toBeDefined();
        expect(propertiesOf(bodySchema(document, `${path}/{id}`, 'patch')).length, path).toBeGreaterThan(0);
      }
    }
  });

  it('answers every entity with its own view schema, holding every key the API returns', async () => {
    for (const plural of [
      'templates',
      'integrations',
      'secrets',
      'workspaces',
      'source_codes',
      'source_code_versions',
      'storages',
      'executors',
      'resources',
      'users',
      'auth_providers',
    ]) {
      const ok = responseOf(document, `/api/${plural}/{id}`, 'get', '200') as OpenAPIV3_1.ResponseObject;
      const schema = ok.content?.['application/json']?.schema as OpenAPIV3_1.SchemaObject;
      expect(schema.title, plural).toBeDefined();
      expect(schema.required, plural).toEqual(Object.keys(schema.properties ?? {}));
    }
    // What GET /api/users/{id} really answers has exactly the documented keys.
    const admin = (await h.inject({ method: 'GET', url: '/api/users' })).json<{ id: string }[]>()[0];
    const me = await h.inject({ method: 'GET', url: `/api/users/${admin?.id ?? ''}` });
    expect(me.statusCode).toBe(200);
    const users = responseOf(document, '/api/users/{id}', 'get', '200') as OpenAPIV3_1.ResponseObject;
    expect(Object.keys(me.json<object>()).sort()).toEqual(
      Object.keys((users.content?.['application/json']?.schema as OpenAPIV3_1.SchemaObject).properties ?? {}).sort(),
    );
  });

  it('documents the docs/contract.md §3 list, get, patch, delete and action conventions', () => {
    const list = operation(document, '/api/storages', 'get');
    expect(list.parameters).toEqual([
      { $ref: '#/components/parameters/filter' },
      { $ref: '#/components/parameters/sort' },
      { $ref: '#/components/parameters/range' },
    ]);
    expect(list.responses?.['200']).toMatchObject({ headers: { 'Content-Range': { $ref: '#/components/headers/ContentRange' } } });
    expect(responseOf(document, '/api/storages/{id}', 'get', '200')).toMatchObject({
      headers: { ETag: { $ref: '#/components/headers/ETag' } },
    });
    expect(responseOf(document, '/api/storages', 'post', '201')).toMatchObject({
      headers: { Location: { $ref: '#/components/headers/Location' } },
    });
    const patch = operation(document, '/api/storages/{id}', 'patch');
    expect(patch.parameters).toContainEqual({ $ref: '#/components/parameters/ifMatch' });
    expect(patch.parameters).toContainEqual({ $ref: '#/components/parameters/idempotencyKey' });
    expect(patch.responses?.['412']).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
    expect(responseOf(document, '/api/storages/{id}', 'delete', '204')).toBeDefined();

    const actions = (path: string): unknown => document.paths[path]?.parameters?.find((p) => 'name' in p && p.name === 'action');
    expect(actions('/api/resources/{id}/actions/{action}')).toMatchObject({ schema: { enum: [...LIFECYCLE_ACTIONS] } });
    expect(actions('/api/templates/{id}/actions/{action}')).toMatchObject({ schema: { enum: ['enable', 'disable'] } });
    expect(document.components?.responses?.BadRequest).toMatchObject({
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
  });

  it('marks the deprecated token endpoint and the public routes', () => {
    const token = operation(document, '/api/auth/service_account/token', 'post');
    expect(token.deprecated).toBe(true);
    expect(token.security).toEqual([]);
    for (const path of ['/api/auth/providers', '/api/auth/.well-known/jwks.json', '/api/openapi.json']) {
      expect(operation(document, path, 'get').security, path).toEqual([]);
    }
    expect(operation(document, '/api/auth/me', 'get').security).toBeUndefined();
    expect(operation(document, '/api/templates', 'get').security).toBeUndefined();
  });

  it('serves Swagger UI at /api/docs without a token, from local assets only', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('swagger-ui');
    expect(page.body).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(page.body).not.toMatch(/https?:\/\//i);

    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets).toContain('./static/swagger-ui-bundle.js');
    for (const asset of assets) {
      const response = await h.app.inject({ method: 'GET', url: new URL(asset, 'http://test/api/docs/').pathname });
      expect(response.statusCode, asset).toBe(200);
    }
    const initializer = await h.app.inject({ method: 'GET', url: '/api/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    // Nothing is fetched from elsewhere: no validator badge, the document from `./json` (comments aside).
    const code = initializer.body.replace(/^\s*\/\/.*$/gm, '');
    expect(code).not.toMatch(/https?:\/\//i);
    expect(code).toContain('validatorUrl: null');
    expect(code).toContain("url: resolveUrl('./json')");
    // The UI loads the same document.
    const json = await h.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json<OpenApiDocument>().paths).toEqual(document.paths);
    // Other routes still need a token.
    expect((await h.app.inject({ method: 'GET', url: '/api/templates' })).statusCode).toBe(401);
  });

  it('sends Swagger UI’s assets compressed to clients that take it, and as they are to the rest', async () => {
    const url = '/api/docs/static/swagger-ui-bundle.js';
    const plain = await h.app.inject({ method: 'GET', url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip;q=1.0, br;q=0', 'gzip', gunzipSync],
    ] as const) {
      const sent = await h.app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } });
      expect(sent.statusCode).toBe(200);
      expect(sent.headers['content-encoding']).toBe(encoding);
      expect(sent.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(decode(sent.rawPayload).equals(plain.rawPayload)).toBe(true);
    }
    // What the plugin writes per request (the initializer names this service's document) is sent as written.
    const initializer = await h.app.inject({
      method: 'GET',
      url: '/api/docs/static/swagger-initializer.js',
      headers: { 'accept-encoding': 'br' },
    });
    expect(initializer.headers['content-encoding']).toBeUndefined();
    expect(initializer.body).toContain("url: resolveUrl('./json')");
  });
});
