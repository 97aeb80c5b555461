import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_NOT_BUILT, webUi } from '../../src/http/web-ui.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const HTML = { accept: 'text/html,application/xhtml+xml' };

/** A GET whose body is counted as it comes off the wire (fetch would decompress it). */
function rawGet(
  url: string,
  acceptEncoding?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }));
    }).on('error', reject);
  });
}

/** The scripts index.html loads at once: its entry and the chunks it preloads (every other page is a lazy chunk). */
async function signInPageScripts(): Promise<string[]> {
  const html = await readFile(path.resolve('dist/web/index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] ?? '');
}

describe('the built service serving the web UI', () => {
  let service: ServiceProcess;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'il-web-serving-'));
    service = await startService({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: 'e2e-web-serving-password' });
  });

  afterAll(async () => {
    await (service as ServiceProcess | undefined)?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers / with index.html, not cached, under a self-only policy with a fresh style nonce', async () => {
    const [first, second] = await Promise.all([fetch(`${service.baseUrl}/`), fetch(`${service.baseUrl}/`)]);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const policy = first.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1] ?? '';
    expect(nonce).not.toBe('');
    const html = await first.text();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(html).not.toContain('__IL_CSP_NONCE__');
    expect(second.headers.get('content-security-policy')).not.toBe(policy);
    await second.text();
  });

  it('serves hashed assets as immutable, publicly (no token needed)', async () => {
    const assets = await readdir(path.resolve('dist/web/assets'));
    const script = assets.find((name) => name.endsWith('.js'));
    const response = await fetch(`${service.baseUrl}/assets/${script ?? 'missing'}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    await response.arrayBuffer();
  });

  it('sends hashed assets precompressed: brotli or gzip as the client accepts, plain otherwise', async () => {
    const [script] = await signInPageScripts();
    const url = `${service.baseUrl}${script ?? '/missing'}`;
    const plain = await rawGet(url);
    const brotli = await rawGet(url, 'br, gzip');
    const gzip = await rawGet(url, 'gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    for (const response of [brotli, gzip]) {
      expect(response.status).toBe(200);
      expect(response.headers.vary).toContain('Accept-Encoding');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect(brotli.bytes).toBeLessThan(gzip.bytes);
    expect(gzip.bytes).toBeLessThan(plain.bytes / 2);
  });

  it('loads the sign-in page in under 300 kB compressed: the entry chunk, no page of the catalog', async () => {
    const scripts = await signInPageScripts();
    let gzip = 0;
    let brotli = 0;
    for (const script of scripts) {
      gzip += (await rawGet(`${service.baseUrl}${script}`, 'gzip')).bytes;
      brotli += (await rawGet(`${service.baseUrl}${script}`, 'br')).bytes;
    }
    expect(gzip).toBeLessThan(300_000);
    expect(brotli).toBeLessThan(300_000);
    // The catalog's pages are chunks of their own, not loaded up front.
    const assets = await readdir(path.resolve('dist/web/assets'));
    expect(assets.some((name) => /^resources-.*\.js$/.test(name))).toBe(true);
    expect(scripts.some((script) => script.includes('resources-'))).toBe(false);
  });

  it('falls back to index.html for deep links that accept HTML, and only for those', async () => {
    const deep = await fetch(`${service.baseUrl}/resources/5f0c1d9e-0000-4000-8000-000000000000/show`, { headers: HTML });
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root"></div>');
    const login = await fetch(`${service.baseUrl}/login?error=access_denied`, { headers: HTML });
    expect(login.status).toBe(200);
    await login.text();
    const missing = await fetch(`${service.baseUrl}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await missing.text();
  });

  it('keeps /api 404s as problem details, also for browsers', async () => {
    const response = await fetch(`${service.baseUrl}/api/no-such-thing`, { headers: HTML });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { detail: string }).detail).toBe('no route for GET /api/no-such-thing');
  });
});

describe('the web UI plugin without a build', () => {
  it('still starts and answers / with a plain message', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'il-web-unbuilt-'));
    const app = Fastify();
    await app.register(webUi, { root: empty });
    const root = await app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(503);
    expect(root.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(root.body).toBe(UI_NOT_BUILT);
    expect((await app.inject({ method: 'GET', url: '/api/templates' })).statusCode).toBe(404);
    await app.close();
    await rm(empty, { recursive: true, force: true });
  });
});
