import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Logger } from '../../src/log.js';
import { formatMs, formatRate, percentile, perSecond } from '../stats.js';
import { adminToken, benchEnvironment, openBenchService, type BenchService } from './service.js';
import { freshDatabase } from '../commands/sides.js';

/**
 * GraphQL writes and live changes: `createTemplate` against `POST /api/templates` (the same write
 * operation behind both; the sides take turns, round after round), then one writer's changes fanned
 * out to many graphql-ws subscribers (deliveries per second, and the time from the write's answer
 * to each delivery). On a fresh database each run: nothing to seed.
 */

export interface LiveOptions {
  readonly databaseUrl: string;
  readonly rounds: number;
  /** Writes per side per round, by `concurrency` clients. */
  readonly writes: number;
  readonly concurrency: number;
  readonly subscribers: number;
  /** Writes whose changes are fanned out (one after the other). */
  readonly fanoutWrites: number;
}

export const LIVE_DEFAULTS: Omit<LiveOptions, 'databaseUrl'> = {
  rounds: 4,
  writes: 200,
  concurrency: 4,
  subscribers: 100,
  fanoutWrites: 200,
};

export interface WriteSide {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

export interface LiveResults {
  readonly rest: WriteSide;
  readonly graphql: WriteSide;
  readonly fanout: {
    readonly subscribers: number;
    readonly writes: number;
    readonly deliveriesPerSecond: number;
    /** From the write's answer to each delivery (0 when it came first). */
    readonly p50: number;
    readonly p99: number;
    /** From the write's request to each delivery. */
    readonly requestP50: number;
    readonly requestP99: number;
  };
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
}

/** Drops and creates the database the URL names (through the server's `postgres` database): each run starts empty. */
async function recreateDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  await freshDatabase(url.toString(), name);
}

let seq = 0;
const templateBody = () => {
  seq += 1;
  return { name: `live bench ${seq}`, template: `live_bench_${seq}` };
};

/** `count` writes by `concurrency` clients; each answer's latency in ms. */
export async function writeMany(
  count: number,
  concurrency: number,
  write: () => Promise<void>,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let left = count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const at = performance.now();
        await write();
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { ms: performance.now() - started, latencies };
}

export async function expectOk(response: Response, what: string): Promise<void> {
  const text = await response.text();
  if (!response.ok || text.includes('"errors"')) throw new Error(`${what} failed: HTTP ${response.status} ${text.slice(0, 300)}`);
}

export function side(runs: readonly { ms: number; latencies: number[] }[]): WriteSide {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const ms = runs.reduce((sum, run) => sum + run.ms, 0);
  return { perSecond: perSecond(latencies.length, ms), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function benchWrites(service: BenchService, token: string, options: LiveOptions): Promise<{ rest: WriteSide; graphql: WriteSide }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const rest = () =>
    fetch(`${service.baseUrl}/api/templates`, { method: 'POST', headers, body: JSON.stringify(templateBody()) }).then((r) =>
      expectOk(r, 'POST /api/templates'),
    );
  const mutation = 'mutation ($input: TemplateCreateInput!) { createTemplate(input: $input) { id name revision } }';
  const graphql = () =>
    fetch(`${service.baseUrl}/api/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: mutation, variables: { input: templateBody() } }),
    }).then((r) => expectOk(r, 'createTemplate'));
  // Warm-up: the JIT, the statement caches and the document cache.
  await writeMany(50, options.concurrency, rest);
  await writeMany(50, options.concurrency, graphql);
  const runs = { rest: [] as { ms: number; latencies: number[] }[], graphql: [] as { ms: number; latencies: number[] }[] };
  for (let round = 0; round < options.rounds; round++) {
    runs.rest.push(await writeMany(options.writes, options.concurrency, rest));
    runs.graphql.push(await writeMany(options.writes, options.concurrency, graphql));
  }
  return { rest: side(runs.rest), graphql: side(runs.graphql) };
}

async function benchFanout(service: BenchService, token: string, options: LiveOptions): Promise<LiveResults['fanout']> {
  const total = options.subscribers * options.fanoutWrites;
  const warmupIds = new Set<string>();
  const deliveries: { readonly id: string; readonly at: number }[] = [];
  let measuring = false;
  let warm = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const clients: Client[] = [];
  const query = 'subscription { changes(entityTypes: ["template"]) { position entityId } }';
  for (let i = 0; i < options.subscribers; i++) {
    const client = createClient({
      url: `${service.baseUrl.replace(/^http/, 'ws')}/api/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    clients.push(client);
    let warmed = false;
    client.subscribe<{ changes: { entityId: string } }>(
      { query },
      {
        next: ({ data }) => {
          const at = performance.now();
          const id = data?.changes.entityId ?? '';
          if (!warmed) {
            warmed = true;
            warm++;
          }
          if (measuring && !warmupIds.has(id)) deliveries.push({ id, at });
          if (warm === options.subscribers || deliveries.length === total) wake?.();
        },
        error: (error) => {
          const code = (error as { code?: number } | null)?.code;
          failure ??= new Error(
            `a subscriber failed: ${code === undefined ? String(error) : `closed ${code} ${(error as { reason?: string }).reason ?? ''}`}`,
          );
          wake?.();
        },
        complete: () => undefined,
      },
    );
  }
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const create = async (): Promise<string> => {
    const response = await fetch(`${service.baseUrl}/api/templates`, { method: 'POST', headers, body: JSON.stringify(templateBody()) });
    if (!response.ok) throw new Error(`POST /api/templates failed: HTTP ${response.status}`);
    return ((await response.json()) as { id: string }).id;
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms);
    });
  // Every subscriber is live once it has seen a warm-up write (written until all have); stragglers settle.
  while (warm < options.subscribers) {
    if (failure) throw failure;
    warmupIds.add(await create());
    await pause(500);
  }
  await pause(1000);
  measuring = true;
  const answeredAt = new Map<string, number>();
  const sentAt = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < options.fanoutWrites; i++) {
    const sent = performance.now();
    const id = await create();
    answeredAt.set(id, performance.now());
    sentAt.set(id, sent);
  }
  const deadline = performance.now() + 60_000;
  while (deliveries.length < total && !failure && performance.now() < deadline) await pause(1000);
  for (const client of clients) await client.dispose();
  if (failure) throw failure;
  if (deliveries.length < total) throw new Error(`fan-out: ${deliveries.length} of ${total} deliveries after 60 s`);
  // A change usually reaches subscribers before its write's answer (which waits for the read model): 0 ms late.
  const delays = deliveries.map((d) => Math.max(0, d.at - (answeredAt.get(d.id) ?? d.at))).sort((a, b) => a - b);
  const fromRequest = deliveries.map((d) => d.at - (sentAt.get(d.id) ?? d.at)).sort((a, b) => a - b);
  const last = Math.max(...deliveries.map((d) => d.at));
  return {
    subscribers: options.subscribers,
    writes: options.fanoutWrites,
    deliveriesPerSecond: perSecond(deliveries.length, last - started),
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    requestP50: percentile(fromRequest, 50),
    requestP99: percentile(fromRequest, 99),
  };
}

/** Runs the live part on a fresh database. */
export async function benchLive(options: LiveOptions, log: Logger, say: (line: string) => void): Promise<LiveResults> {
  await recreateDatabase(options.databaseUrl);
  // One caller opens every subscriber here: lift the per-caller limits above the bench's count.
  const limit = String(options.subscribers * 2);
  const env = { ...(await benchEnvironment(options.databaseUrl)), SUBSCRIPTION_MAX_CONNECTIONS: limit, SUBSCRIPTION_MAX_PER_CALLER: limit };
  const service = await openBenchService(env, log);
  try {
    const token = await adminToken(service.baseUrl, env);
    const loadBefore = os.loadavg();
    const writes = await benchWrites(service, token, options);
    say(
      `[graphql live] createTemplate ${formatRate(writes.graphql.perSecond)}/s (p99 ${formatMs(writes.graphql.p99)} ms) vs POST ` +
        `/api/templates ${formatRate(writes.rest.perSecond)}/s (p99 ${formatMs(writes.rest.p99)} ms)`,
    );
    const fanout = await benchFanout(service, token, options);
    return { ...writes, fanout, loadBefore, loadAfter: os.loadavg() };
  } finally {
    await service.close();
  }
}

/** The figures as lines for the report (and docs/benchmarks.md). */
export function formatLive(results: LiveResults, options: Omit<LiveOptions, 'databaseUrl'>): string[] {
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  const ratio = results.graphql.perSecond / results.rest.perSecond;
  return [
    `writes (${options.rounds} rounds × ${options.writes} per side, ${options.concurrency} clients, sides taking turns):`,
    `  createTemplate         ${formatRate(results.graphql.perSecond)}/s  p50 ${formatMs(results.graphql.p50)} ms  p99 ` +
      `${formatMs(results.graphql.p99)} ms`,
    `  POST /api/templates    ${formatRate(results.rest.perSecond)}/s  p50 ${formatMs(results.rest.p50)} ms  p99 ` +
      `${formatMs(results.rest.p99)} ms`,
    `  ratio GraphQL / REST   ${ratio.toFixed(2)}`,
    `fan-out (${results.fanout.subscribers} graphql-ws subscribers, ${results.fanout.writes} writes one after another):`,
    `  deliveries             ${formatRate(results.fanout.deliveriesPerSecond)}/s`,
    `  write answer → delivery p50 ${formatMs(results.fanout.p50)} ms  p99 ${formatMs(results.fanout.p99)} ms (0 when the change ` +
      `arrived before the answer)`,
    `  write request → delivery p50 ${formatMs(results.fanout.requestP50)} ms  p99 ${formatMs(results.fanout.requestP99)} ms`,
    `load average (1/5/15 min) before ${load(results.loadBefore)}, after ${load(results.loadAfter)}; node ${process.version}, ` +
      `${os.availableParallelism()} CPUs shared by the service, the clients and PostgreSQL`,
  ];
}
