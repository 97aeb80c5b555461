import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { generateSigningJwk } from '../../src/auth/tokens.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes?: readonly { key: string; value: Record<string, unknown> }[];
  readonly service: string;
}

/** A local OTLP/HTTP receiver (POST /v1/traces, JSON): what the service exports lands in `spans`. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/v1/traces' && request.method === 'POST') {
        const payload = JSON.parse(body) as {
          resourceSpans?: {
            resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
            scopeSpans?: { spans?: Omit<ReceivedSpan, 'service'>[] }[];
          }[];
        };
        for (const resource of payload.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) spans.push({ ...span, service });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver not listening');
  return { server, url: `http://127.0.0.1:${address.port}`, spans };
}

/** Waits until the receiver holds spans satisfying `ready` (the exporter sends every 100 ms here), bounded. */
async function spansWhere(spans: ReceivedSpan[], ready: (spans: ReceivedSpan[]) => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready(spans)) {
    if (Date.now() > deadline) throw new Error(`spans did not arrive; got: ${spans.map((s) => s.name).join(', ')}`);
    await delay(100);
  }
}

for (const target of databaseTargets())
  describe(`tracing with OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT) on ${target.name}`, () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let service: ServiceProcess;
    let dataDir: string;
    let database: TestDatabase | undefined;
    let token: string;

    beforeAll(async () => {
      receiver = await startReceiver();
      dataDir = await mkdtemp(path.join(tmpdir(), 'il-tracing-'));
      // PostgreSQL: a database of its own, which the service migrates; PGlite: embedded in DATA_DIR.
      database = target.name === 'postgres' ? await target.create({ migrate: false }) : undefined;
      const store: Record<string, string> = database?.url
        ? {
            DATABASE_URL: database.url,
            SECRET_KEY: randomBytes(32).toString('base64'),
            TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
          }
        : {};
      service = await startService({
        ...store,
        DATA_DIR: dataDir,
        INITIAL_ADMIN_PASSWORD: 'e2e-tracing-password',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'infraledger-e2e',
      });
      const response = await fetch(`${service.baseUrl}/api/auth/service_account/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'admin', password: 'e2e-tracing-password' }),
      });
      token = ((await response.json()) as { token: string }).token;
    });

    afterAll(async () => {
      await (service as ServiceProcess | undefined)?.stop();
      receiver.server.close();
      await database?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('gives a write one trace: the request, decide, append (with its SQL), and the wait for the projections', async () => {
      // The caller's trace context is continued (W3C traceparent).
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const created = await fetch(`${service.baseUrl}/api/templates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
        body: JSON.stringify({ name: 'Traced', template: 'traced' }),
      });
      expect(created.status).toBe(201);
      const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
      // The request's own span ends last (after the answer is sent): wait for it too.
      await spansWhere(
        receiver.spans,
        () =>
          ['decide', 'append', 'wait for projections'].every((name) => inTrace().some((s) => s.name === name)) &&
          inTrace().some((s) => s.parentSpanId === '00f067aa0ba902b7'),
      );

      const spans = inTrace();
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const named = (name: string) => spans.find((s) => s.name === name);
      const root = spans.find((s) => s.parentSpanId === '00f067aa0ba902b7');
      expect(root?.service).toBe('infraledger-e2e');
      // decide, append and the wait are descendants of the request's span, in that order of work.
      const ancestors = (span: ReceivedSpan | undefined): string[] => {
        const chain: string[] = [];
        for (let at = span; at?.parentSpanId !== undefined && byId.has(at.parentSpanId); at = byId.get(at.parentSpanId))
          chain.push(at.parentSpanId);
        return chain;
      };
      for (const name of ['decide', 'append', 'wait for projections']) expect(ancestors(named(name))).toContain(root?.spanId);
      // On PostgreSQL the SQL of the append is traced inside it (pg instrumentation); PGlite has no driver to instrument.
      const append = named('append');
      const appendSql = spans.filter((s) => s.name.startsWith('pg.query') && ancestors(s).includes(append?.spanId ?? ''));
      expect(appendSql.length > 0).toBe(target.name === 'postgres');
    });

    it('traces GraphQL operations (graphql instrumentation) under their request', async () => {
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const answered = await fetch(`${service.baseUrl}/api/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
        body: JSON.stringify({ query: 'query Names { templates { name } }' }),
      });
      expect(answered.status).toBe(200);
      await spansWhere(receiver.spans, (spans) => spans.some((s) => s.traceId === traceId && s.name.startsWith('graphql.')));
      expect(receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^graphql\.(parse|validate|execute)/)]),
      );
    });

    it('does not trace health probes and scrapes', async () => {
      await fetch(`${service.baseUrl}/healthz`);
      await fetch(`${service.baseUrl}/metrics`);
      const marker = '5bf92f3577b34da6a3ce929d0e0e4737';
      await fetch(`${service.baseUrl}/api/auth/providers`, { headers: { traceparent: `00-${marker}-00f067aa0ba902b8-01` } });
      await spansWhere(receiver.spans, (spans) => spans.some((s) => s.traceId === marker));
      const urls = receiver.spans.flatMap((s) =>
        (s.attributes ?? [])
          .filter((a) => a.key === 'url.path' || a.key === 'http.target' || a.key === 'http.route')
          .map((a) => String(a.value.stringValue)),
      );
      expect(urls).not.toContain('/healthz');
      expect(urls).not.toContain('/metrics');
    });
  });
