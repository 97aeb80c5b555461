import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminToken, benchEnvironment } from '../graphql/service.js';
import { side, writeMany, type WriteSide } from '../graphql/live.js';
import { keepAlivePost } from './http-post.js';
import { formatMs, formatRate } from '../stats.js';
import { BASE_COMMIT, DURABLE_BASE_COMMIT, freshDatabase, REPOSITORY, sourceTreeOf, startService, type ServiceProcess } from './sides.js';

/**
 * `npm run bench -- commands`: `POST /api/templates` at 8 clients against the service as it was
 * before issue 20 and as it is now, both running at once on the same PostgreSQL server (each on a
 * fresh database of its own), the sides taking turns round after round. Every write waits for its
 * read model (read-your-writes), so the rate is the whole command path's.
 */
export interface CommandsOptions {
  /** The PostgreSQL server both sides get a database on; undefined: both embedded (a DATA_DIR each). */
  readonly adminUrl: string | undefined;
  readonly baseRef: string;
  readonly clients: number;
  readonly rounds: number;
  readonly writesPerRound: number;
  /** Writes per side before the rounds, not counted. */
  readonly warmupWrites: number;
}

/**
 * A service process runs its first couple of thousand writes slower (alone: 160–245 writes/s over its
 * first 500, 255–275 after 2,000; restarted on the same database, slow again: the process warms up,
 * not the data; docs/benchmarks.md), so each side warms up with 1,000 writes before the measured
 * rounds and the figures are steady-state throughput.
 */
export const COMMANDS_DEFAULTS = { clients: 8, rounds: 4, writesPerRound: 400, warmupWrites: 1000 } as const;

/** One side's rounds and their sum. */
export interface CommandSide {
  readonly name: string;
  readonly rounds: readonly WriteSide[];
  readonly total: WriteSide;
}

/** What the commands part measured. */
export interface CommandsResults {
  readonly old: CommandSide;
  readonly current: CommandSide;
  readonly baseCommit: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
}

let sequence = 0;
/** A new template's body, named after the side posting it (the peers bench posts the same). */
export const templateBody = (side: string): string => {
  sequence += 1;
  return JSON.stringify({
    name: `bench ${side} ${sequence}`,
    template: `bench_${side}_${sequence}`,
    labels: ['bench'],
    cloudResourceTypes: ['aws_s3_bucket'],
  });
};

/** The environment of an embedded side: a fresh DATA_DIR of its own, nothing pointing at a server. */
function embeddedEnvironment(name: string): Record<string, string> {
  return {
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), `infraledger-bench-embedded-${name}-`)),
    DATABASE_URL: '',
    EVENT_STORE: 'postgres',
    INITIAL_ADMIN_PASSWORD: process.env.BENCH_ADMIN_PASSWORD ?? 'bench-admin-password-long',
    LOG_LEVEL: 'warn',
  };
}

/** Runs both sides; `say` gets progress lines. */
export async function benchCommands(options: CommandsOptions, say: (line: string) => void): Promise<CommandsResults> {
  const loadBefore = os.loadavg();
  const oldTree = sourceTreeOf(options.baseRef);
  const trees = [
    { name: 'before', tree: oldTree, database: 'infraledger_bench_commands_before' },
    { name: 'now', tree: REPOSITORY, database: 'infraledger_bench_commands_now' },
  ];
  const services: { name: string; service: ServiceProcess; token: string }[] = [];
  try {
    for (const { name, tree, database } of trees) {
      const env =
        options.adminUrl === undefined
          ? embeddedEnvironment(name)
          : await benchEnvironment(await freshDatabase(options.adminUrl, database));
      const service = await startService(tree, env, name);
      services.push({ name, service, token: await adminToken(service.baseUrl, env) });
      say(
        `[commands] ${name}: ${tree === REPOSITORY ? 'this checkout' : `${options.baseRef} in ${tree}`}, listening on ${service.baseUrl}`,
      );
    }
    const write = ({ name, service, token }: (typeof services)[number]) => {
      const post = keepAlivePost(service.baseUrl, options.clients);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      return async () => {
        const answer = await post('/api/templates', headers, templateBody(name));
        if (answer.status < 200 || answer.status >= 300)
          throw new Error(`POST /api/templates (${name}) failed: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
      };
    };
    const writers = new Map(services.map((s) => [s.name, write(s)]));
    const writerOf = (s: (typeof services)[number]): (() => Promise<void>) => writers.get(s.name) ?? write(s);
    for (const s of services) await writeMany(options.warmupWrites, options.clients, writerOf(s));
    const runs = new Map(services.map((s) => [s.name, [] as { ms: number; latencies: number[] }[]]));
    for (let round = 0; round < options.rounds; round++) {
      // before, now, now, before, …: each side goes first as often as second.
      const order = round % 2 === 0 ? services : [...services].reverse();
      for (const s of order) {
        const run = await writeMany(options.writesPerRound, options.clients, writerOf(s));
        runs.get(s.name)?.push(run);
        say(`[commands] round ${round + 1} ${s.name}: ${formatRate((run.latencies.length * 1000) / run.ms)} writes/s`);
      }
    }
    const sideOf = (name: string): CommandSide => {
      const r = runs.get(name) ?? [];
      return { name, rounds: r.map((run) => side([run])), total: side(r) };
    };
    return { old: sideOf('before'), current: sideOf('now'), baseCommit: options.baseRef, loadBefore, loadAfter: os.loadavg() };
  } finally {
    for (const { service } of services) await service.stop();
  }
}

/** The report lines: each round side by side with its ratio, then the totals. */
export function formatCommands(results: CommandsResults, options: CommandsOptions): string[] {
  const line = (label: string, a: WriteSide, b: WriteSide): string =>
    `${label.padEnd(8)} ${formatRate(a.perSecond).padStart(8)} (${formatMs(a.p50)} / ${formatMs(a.p99)})   ` +
    `${formatRate(b.perSecond).padStart(8)} (${formatMs(b.p50)} / ${formatMs(b.p99)})   ` +
    (b.perSecond / a.perSecond).toFixed(2).padStart(6);
  const lines = [`round    before /s (p50 / p99 ms)   now /s (p50 / p99 ms)   now / before`];
  results.old.rounds.forEach((a, i) => {
    const b = results.current.rounds[i];
    if (b) lines.push(line(String(i + 1), a, b));
  });
  lines.push(line('all', results.old.total, results.current.total));
  lines.push(
    `POST /api/templates by ${options.clients} clients, ${options.rounds} rounds of ${options.writesPerRound} writes per side (after ` +
      `${options.warmupWrites} each to warm up), ` +
      `${options.adminUrl === undefined ? 'both embedded (PGlite in a DATA_DIR each)' : 'both on PostgreSQL'}; before = ` +
      results.baseCommit,
    `load average before ${results.loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ` +
      `${results.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ${os.availableParallelism()} CPUs`,
  );
  return lines;
}

export { BASE_COMMIT, DURABLE_BASE_COMMIT };
