import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Where @fastify/swagger-ui keeps the files it serves under `<prefix>/static/`. */
const STATIC_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static');

const COMPRESSIBLE = /^[\w.-]+\.(js|css|html|json|svg)$/;

type Encoding = 'br' | 'gzip';

/** The encoding to send: brotli when the client takes it, else gzip, else none (q=0 refuses one). */
export function preferredEncoding(header: string | string[] | undefined): Encoding | undefined {
  const offered = new Map(
    (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((part) => part.trim().toLowerCase().split(';'))
      .filter(([name]) => name !== undefined && name !== '')
      .map(([name = '', ...params]) => {
        const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
        return [name, q === undefined ? 1 : Number(q)] as const;
      }),
  );
  const accepts = (name: Encoding): boolean => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return undefined;
}

/**
 * Swagger UI's assets compressed (its bundle is 1.4 MB as shipped, ≈0.3 MB in brotli): each file is
 * compressed once, on its first request, and kept in memory (a few hundred kilobytes in all), so no
 * later request spends CPU on it. Registered in the docs' scope, after the plugin serves a file.
 */
export function compressDocsAssets(scope: FastifyInstance, prefix: string): void {
  const cache = new Map<string, Promise<Buffer>>();
  const compressed = (file: string, encoding: Encoding): Promise<Buffer> => {
    const key = `${encoding}:${file}`;
    let entry = cache.get(key);
    if (!entry) {
      entry = readFile(path.join(STATIC_DIR, file)).then((content) =>
        encoding === 'br' ? brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) : gzipAsync(content, { level: 9 }),
      );
      // A failed read is not kept: the next request tries again.
      entry.catch(() => cache.delete(key));
      cache.set(key, entry);
    }
    return entry;
  };
  scope.addHook('onSend', async (request, reply, payload) => {
    const file = request.url.startsWith(`${prefix}/static/`) ? request.url.slice(prefix.length + 8).split('?')[0] : undefined;
    if (request.method !== 'GET' || file === undefined || !COMPRESSIBLE.test(file) || reply.statusCode !== 200) return payload;
    // Only files the static plugin streams from disk: the plugin writes some (the initializer) per request.
    if (reply.hasHeader('content-range') || typeof payload === 'string' || Buffer.isBuffer(payload)) return payload;
    // The body depends on Accept-Encoding from now on: caches must key on it.
    void reply.header('Vary', 'Accept-Encoding');
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    if (encoding === undefined) return payload;
    const body = await compressed(file, encoding);
    // The static plugin's stream is not sent: end it so that its file is closed.
    (payload as { destroy?: () => void } | null)?.destroy?.();
    reply.removeHeader('content-length');
    void reply.header('Content-Encoding', encoding);
    return body;
  });
}
