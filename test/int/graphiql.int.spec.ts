import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultGraphiqlRoot, GRAPHIQL_CSP, GRAPHIQL_NOT_BUILT } from '../../src/graphql/graphiql.js';
import { registerGraphql } from '../../src/graphql/plugin.js';
import { registerAuthentication } from '../../src/http/auth-hook.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SCRIPT = 'index-Ab12Cd34.js';
const SCRIPT_BODY = 'console.log("graphiql");\n';
const PAGE =
  `<!doctype html><html><head><script type="module" src="/api/graphql/assets/${SCRIPT}"></script></head><body><div ` +
  `id="graphiql"></div></body></html>\n`;

/** What `npm run build:graphiql` writes, in miniature: index.html and one hashed asset. */
async function fakeBuild(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(path.join(dir, 'index.html'), PAGE);
  await writeFile(path.join(dir, 'assets', SCRIPT), SCRIPT_BODY);
}

const [target] = databaseTargets();
if (target === undefined) throw new TypeError('no database target');

describe('GraphiQL at GET /api/graphql', () => {
  let harness: HttpHarness;
  let dir: string;
  /** The GraphQL scope as the service builds it (REST auth hook + Mercurius), on a fixture build or none. */
  const apps: FastifyInstance[] = [];
  let built: FastifyInstance;
  let missing: FastifyInstance;

  async function graphqlApp(root: string): Promise<FastifyInstance> {
    const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    apps.push(app);
    registerAuthentication(app, harness.services.authenticator, harness.services.now, { recallWriters: false });
    await registerGraphql(app, harness.services, { graphiql: { root } });
    await app.ready();
    return app;
  }

  beforeAll(async () => {
    harness = await openHttpApp(target);
    dir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-graphiql-'));
    await fakeBuild(path.join(dir, 'built'));
    built = await graphqlApp(path.join(dir, 'built'));
    missing = await graphqlApp(path.join(dir, 'missing'));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await harness.close();
    await rm(dir, { recursive: true, force: true });
  });

  const openPage = (app: FastifyInstance, url = '/api/graphql'): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url, headers: { accept: BROWSER_ACCEPT } });

  describe('when a browser opens it', () => {
    it('serves the built page without a token, uncached, under a same-origin-only CSP', async () => {
      const response = await openPage(built);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(PAGE);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBe(GRAPHIQL_CSP);
    });

    it('allows nothing but the service itself (and data: fonts and images) in its CSP', () => {
      expect(GRAPHIQL_CSP).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
          "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
      );
    });

    it('serves the page with a trailing slash too', async () => {
      const response = await openPage(built, '/api/graphql/');
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(PAGE);
    });

    it('answers HEAD with the page headers and no body', async () => {
      const response = await built.inject({ method: 'HEAD', url: '/api/graphql', headers: { accept: BROWSER_ACCEPT } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-security-policy']).toBe(GRAPHIQL_CSP);
      expect(response.body).toBe('');
    });

    it('ignores a bad token: the page is public', async () => {
      const response = await built.inject({
        method: 'GET',
        url: '/api/graphql',
        headers: { accept: BROWSER_ACCEPT, authorization: 'Bearer nonsense' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(PAGE);
    });
  });

  describe('when the page loads its assets', () => {
    it('serves a hashed asset without a token, cached for a year as immutable', async () => {
      const response = await built.inject({ method: 'GET', url: `/api/graphql/assets/${SCRIPT}` });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(SCRIPT_BODY);
      expect(response.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers 404 for an unknown asset, for index.html under assets/ and for paths escaping the directory', async () => {
      for (const url of [
        '/api/graphql/assets/index-Zz99.js',
        '/api/graphql/assets/index.html',
        '/api/graphql/assets/../index.html',
        '/api/graphql/assets/%2e%2e/index.html',
      ]) {
        const response = await built.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(404);
      }
    });
  });

  describe('when the client asks for GraphQL', () => {
    it('answers GET ?query= as GraphQL, even from a browser', async () => {
      for (const accept of ['application/json', BROWSER_ACCEPT]) {
        const response = await built.inject({ method: 'GET', url: '/api/graphql?query=%7B__typename%7D', headers: { accept } });
        expect(response.statusCode, accept).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.json()).toEqual({ data: { __typename: 'Query' } });
      }
    });

    it('answers a POST as GraphQL, even with Accept: text/html', async () => {
      const response = await built.inject({
        method: 'POST',
        url: '/api/graphql',
        headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/json' },
        payload: { query: '{ __typename }' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ data: { __typename: 'Query' } });
    });

    it('keeps GET without Accept: text/html for GraphQL: no page, no query, a GraphQL error', async () => {
      const response = await built.inject({ method: 'GET', url: '/api/graphql', headers: { accept: 'application/json' } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ errors: [{ message: 'Unknown query', extensions: { code: 'BAD_REQUEST' } }] });
    });
  });

  describe('when GraphiQL was not built', () => {
    it('answers the browser 503 with a message naming npm run build', async () => {
      const response = await openPage(missing);
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toBe(GRAPHIQL_NOT_BUILT);
      expect(GRAPHIQL_NOT_BUILT).toContain('npm run build');
    });

    it('has no assets, and GraphQL over GET and POST still works', async () => {
      expect((await missing.inject({ method: 'GET', url: `/api/graphql/assets/${SCRIPT}` })).statusCode).toBe(404);
      const get = await missing.inject({
        method: 'GET',
        url: '/api/graphql?query=%7B__typename%7D',
        headers: { accept: 'application/json' },
      });
      expect(get.json()).toEqual({ data: { __typename: 'Query' } });
      const post = await missing.inject({ method: 'POST', url: '/api/graphql', payload: { query: '{ __typename }' } });
      expect(post.json()).toEqual({ data: { __typename: 'Query' } });
    });
  });

  describe('in the service as built by buildApp', () => {
    it('looks for the build in dist/graphiql under the package root, whatever the working directory', () => {
      expect(defaultGraphiqlRoot()).toBe(path.resolve(import.meta.dirname, '../../dist/graphiql'));
    });

    it('serves the page when dist/graphiql is built, and the not-built message otherwise', async () => {
      const response = await openPage(harness.app);
      if (existsSync(path.join(defaultGraphiqlRoot(), 'index.html'))) {
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-security-policy']).toBe(GRAPHIQL_CSP);
        expect(response.body).toContain('/api/graphql/assets/');
      } else {
        expect(response.statusCode).toBe(503);
        expect(response.body).toBe(GRAPHIQL_NOT_BUILT);
      }
    });

    it('still answers GET ?query= with Accept: application/json as GraphQL', async () => {
      const response = await harness.app.inject({
        method: 'GET',
        url: '/api/graphql?query=%7B__typename%7D',
        headers: { accept: 'application/json' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ data: { __typename: 'Query' } });
    });

    it('answers an unknown asset with problem details', async () => {
      const response = await harness.app.inject({ method: 'GET', url: '/api/graphql/assets/nope.js' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    });
  });
});
