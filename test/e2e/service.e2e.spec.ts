import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningJwk } from '../../src/auth/tokens.js';
import { allProjections } from '../../src/projections/registry.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

interface Template {
  id: string;
  name: string;
  template: string;
  labels: string[];
  revision: number;
}

const ADMIN_PASSWORD = 'e2e-admin-password';
// Fixed across restarts (each start gets a new port): it is the tokens' issuer.
const BASE_URL = 'http://infraledger.e2e.test';
let token = '';
const json = (): Record<string, string> => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });

async function signInAsAdmin(base: string): Promise<void> {
  const response = await fetch(`${base}/api/auth/service_account/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'admin', password: ADMIN_PASSWORD }),
  });
  expect(response.status).toBe(200);
  token = ((await response.json()) as { token: string }).token;
}

async function createTemplate(base: string, name: string, slug: string, labels: string[]): Promise<Template> {
  const response = await fetch(`${base}/api/templates`, {
    method: 'POST',
    headers: json(),
    body: JSON.stringify({ name, template: slug, labels }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Template;
}

const list = async (base: string, query: Record<string, unknown>): Promise<{ body: Template[]; range: string | null }> => {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, JSON.stringify(v)]));
  const response = await fetch(`${base}/api/templates?${params.toString()}`, { headers: json() });
  expect(response.status).toBe(200);
  return { body: (await response.json()) as Template[], range: response.headers.get('content-range') };
};

interface Mode {
  readonly name: string;
  env(dataDir: string): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

const embedded: Mode = {
  name: 'embedded PGlite',
  env: (dataDir) => Promise.resolve({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, BASE_URL }),
  cleanup: () => Promise.resolve(),
};

function postgres(adminUrl: string): Mode {
  const database = `il_e2e_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  const key = randomBytes(32).toString('base64');
  return {
    name: 'PostgreSQL',
    async env(dataDir) {
      await admin(`CREATE DATABASE ${database}`);
      const url = new URL(adminUrl);
      url.pathname = `/${database}`;
      return {
        DATA_DIR: dataDir,
        DATABASE_URL: url.toString(),
        SECRET_KEY: key,
        TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
        INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
        BASE_URL,
      };
    },
    cleanup: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  };
}

const modes = [embedded, ...(process.env.TEST_DATABASE_URL ? [postgres(process.env.TEST_DATABASE_URL)] : [])];

for (const mode of modes) {
  describe(`the built service on ${mode.name}`, () => {
    let dataDir: string;
    let env: Record<string, string>;
    let service: ServiceProcess;

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'infraledger-e2e-'));
      env = await mode.env(dataDir);
      service = await startService(env);
      await signInAsAdmin(service.baseUrl);
    });
    afterAll(async () => {
      await service.stop();
      await mode.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('answers health and readiness', async () => {
      expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${service.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { status: string; projections: { name: string; state: string }[] };
      expect(body.status).toBe('ready');
      expect(body.projections.map((p) => p.name)).toEqual(allProjections.map((p) => p.name));
      expect(body.projections.every((p) => p.state === 'running')).toBe(true);
    });

    it('reads back templates created over REST, sorted, filtered and paginated', async () => {
      const base = service.baseUrl;
      for (const [i, name] of ['delta', 'alpha', 'echo', 'charlie', 'bravo'].entries()) {
        await createTemplate(base, `Service ${name}`, `service_${name}`, i % 2 === 0 ? ['even'] : ['odd']);
      }
      const sorted = await list(base, { sort: ['name', 'ASC'], range: [0, 10] });
      expect(sorted.body.map((t) => t.template)).toEqual([
        'service_alpha',
        'service_bravo',
        'service_charlie',
        'service_delta',
        'service_echo',
      ]);
      expect(sorted.range).toBe('templates 0-4/5');

      const even = await list(base, { filter: { labels: 'even' }, sort: ['name', 'DESC'] });
      expect(even.body.map((t) => t.template)).toEqual(['service_echo', 'service_delta', 'service_bravo']);

      const page = await list(base, { sort: ['name', 'ASC'], range: [2, 2] });
      expect(page.body.map((t) => t.template)).toEqual(['service_charlie', 'service_delta']);
      expect(page.range).toBe('templates 2-3/5');
    });

    it('signs people and machines in and enforces roles, over real HTTP', async () => {
      const base = service.baseUrl;
      const post = (path: string, body: unknown, bearer = token) =>
        fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
          body: JSON.stringify(body),
        });
      const signIn = async (identifier: string, password: string): Promise<string> => {
        const response = await fetch(`${base}/api/auth/service_account/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ identifier, password }),
        });
        expect(response.headers.get('deprecation')).toBe('true');
        return ((await response.json()) as { token: string }).token;
      };
      const unauthenticated = await fetch(`${base}/api/templates`);
      expect(unauthenticated.status).toBe(401);
      expect(((await unauthenticated.json()) as { detail: string }).detail).toBe(
        'Not authenticated. Please provide a valid bearer token in the Authorization header.',
      );

      const infra = await post('/api/users', {
        kind: 'service_account',
        identifier: 'e2e-infra',
        password: 'e2e-infra-password',
        roles: ['infra'],
      });
      expect(infra.status).toBe(201);
      expect(
        (
          await post('/api/users', {
            kind: 'service_account',
            identifier: 'e2e-reader',
            password: 'e2e-reader-password',
            roles: ['default'],
          })
        ).status,
      ).toBe(201);
      const infraToken = await signIn('e2e-infra', 'e2e-infra-password');
      const readerToken = await signIn('e2e-reader', 'e2e-reader-password');
      expect((await post('/api/templates', { name: 'By infra', template: 'by_infra' }, infraToken)).status).toBe(201);
      const refused = await post('/api/templates', { name: 'By reader', template: 'by_reader' }, readerToken);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toBe('missing permission template:write');

      const { id } = (await infra.json()) as { id: string };
      expect((await post(`/api/users/${id}/actions/deactivate`, {})).status).toBe(200);
      const after = await fetch(`${base}/api/templates`, { headers: { authorization: `Bearer ${infraToken}` } });
      expect(after.status).toBe(401);
      expect(((await after.json()) as { detail: string }).detail).toBe('user deactivated');
      const jwks = (await (await fetch(`${base}/api/auth/.well-known/jwks.json`)).json()) as {
        keys: { kty: string; crv: string; d?: string }[];
      };
      expect(jwks.keys.map((k) => [k.kty, k.crv, k.d])).toEqual([['OKP', 'Ed25519', undefined]]);
    });

    it('keeps every acknowledged write across a kill -9 and a restart', async () => {
      const created = await createTemplate(service.baseUrl, 'Survivor', 'survivor', []);
      await service.kill();
      service = await startService(env);
      // The token survives the restart too: sessions and keys live in the stores, not in memory.
      const response = await fetch(`${service.baseUrl}/api/templates/${created.id}`, { headers: json() });
      if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}\n${service.output().slice(-3000)}`);
      expect(await response.json()).toMatchObject({ name: 'Survivor', revision: 1 });
      const all = await list(service.baseUrl, { range: [0, 100] });
      expect(all.range).toBe('templates 0-6/7');
    });

    it('shuts down cleanly on SIGTERM', async () => {
      expect(await service.stop()).toBe(0);
      service = await startService(env);
      expect(service.output()).toContain('infraledger is ready');
    });
  });
}
