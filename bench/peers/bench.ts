import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/log.js';
import { percentile } from '../stats.js';
import { postgresCpuBetween, postgresCpuByProcess, processCpuMicros } from '../cpu.js';
import { ensureDatabase, sampleResourceIds, type CatalogSize } from '../graphql/catalog.js';
import { ensureCatalog, post } from '../graphql/bench.js';
import { combine, runLoad, type LoadSpec, type RawRun } from '../graphql/load.js';
import { adminToken, benchEnvironment, openBenchService } from '../graphql/service.js';
import { side, writeMany } from '../graphql/live.js';
import { keepAlivePost } from '../commands/http-post.js';
import { templateBody } from '../commands/bench.js';
import { freshDatabase, PRODUCTION_ENTRY, REPOSITORY, startService, type ServiceProcess } from '../commands/sides.js';
import { compiledEntry } from './compiled.js';
import { installPostGraphile, openPostGraphile, postGraphileToken, type PostGraphileSide } from './postgraphile.js';

/**
 * `npm run bench -- peers`: the service against what its users would run instead, side by side on
 * one machine and one PostgreSQL server: creates against Emmett (`benchCreates`), and one resource
 * by id over GraphQL (five fields) against PostGraphile 4.14 on the service's own read tables,
 * without authentication and with a JWT, at 1 and 32 clients (`benchPeers`). Every side is a process of
 * its own. The sides take turns, the order swapped every round, and each ratio is the median of the
 * rounds' ratios.
 */
export interface PeersOptions {
  readonly databaseUrl: string;
  readonly size: CatalogSize;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly rounds: number;
}

/** One ratio: ours over the peer's requests/s, per round and their median. */
export interface PeerRatio {
  readonly measure: string;
  readonly peer: string;
  readonly connections: number;
  readonly ours: number;
  readonly theirs: number;
  readonly median: number;
  readonly rounds: readonly number[];
  readonly load: readonly number[];
}

const OURS = 'query ($id: UUID!) { resource(id: $id) { id name state status createdAt } }';
// PostGraphile's default inflection names the by-primary-key root `resourceById`; the alias gives both answers one shape.
const THEIRS = 'query ($id: UUID!) { resource: resourceById(id: $id) { id name state status createdAt } }';
const CONNECTIONS = [1, 32] as const;
/** How long each side is loaded at each connection count before the first timed round (nothing measured). */
const SIDE_WARMUP_SECONDS = 5;
/** A secret for the JWT side: it protects nothing, the database exists only for benchmarks. */
const PEER_JWT_SECRET = 'infraledger-bench-only-jwt-secret';

const bodiesOf = (document: string, ids: readonly string[]): string[] =>
  ids.map((id) => JSON.stringify({ query: document, variables: { id } }));

/** Before timing: each side answers the resource asked for, without errors. */
async function verify(url: string, document: string, ids: readonly string[], headers: Record<string, string>, side: string): Promise<void> {
  for (const id of ids.slice(0, 5)) {
    const answer = (await post(url, JSON.stringify({ query: document, variables: { id } }), headers)) as {
      data?: { resource?: { id?: string } | null };
      errors?: unknown;
    };
    if (answer.errors !== undefined || answer.data?.resource?.id !== id) {
      throw new Error(`${side} did not answer resource ${id}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
  }
}

/** Runs the part, saying each ratio as it is measured. */
export async function benchPeers(options: PeersOptions, log: Logger, say: (line: string) => void): Promise<PeerRatio[]> {
  if (await ensureDatabase(options.databaseUrl)) say('[peers] created the bench database');
  await installPostGraphile(say);
  const env = await benchEnvironment(options.databaseUrl);
  // The catalog is seeded (when short) and sampled through a service in this process; the measured
  // service is then a process of its own, as PostGraphile's side is and as production runs it.
  const seeding = await openBenchService(env, log, { countStatements: false });
  let ids: string[];
  try {
    await ensureCatalog(seeding, env, options.size, (line) => say(`[peers] ${line}`));
    ids = await sampleResourceIds(seeding.services.pool, 1000);
  } finally {
    await seeding.close();
  }
  if (ids.length === 0) throw new Error('the bench database holds no resources');
  const service = await startService(REPOSITORY, env, 'ours', PRODUCTION_ENTRY);
  const peers: PostGraphileSide[] = [];
  try {
    const open = await openPostGraphile(options.databaseUrl);
    peers.push(open);
    const guarded = await openPostGraphile(options.databaseUrl, PEER_JWT_SECRET);
    peers.push(guarded);
    const sides = {
      ours: {
        url: `${service.baseUrl}/api/graphql`,
        document: OURS,
        headers: { authorization: `Bearer ${await adminToken(service.baseUrl, env)}` },
        pid: service.child.pid,
      },
      'PostGraphile without auth': { url: open.url, document: THEIRS, headers: {}, pid: open.pid },
      'PostGraphile with JWT': {
        url: guarded.url,
        document: THEIRS,
        headers: { authorization: `Bearer ${await postGraphileToken(PEER_JWT_SECRET)}` },
        pid: guarded.pid,
      },
    };
    type SideName = keyof typeof sides;
    for (const [name, side] of Object.entries(sides)) await verify(side.url, side.document, ids, side.headers, name);
    const specOf = (side: (typeof sides)[keyof typeof sides], connections: number): LoadSpec => ({
      url: side.url,
      headers: side.headers,
      bodies: bodiesOf(side.document, ids),
      connections,
      warmupSeconds: options.warmupSeconds,
      durationSeconds: options.durationSeconds,
    });
    // Every side is warmed alike before any round is timed, as the creates are (CREATES.warmupWrites):
    // a run's own warm-up left the first round of a side with more code to compile still cold.
    for (const side of Object.values(sides))
      for (const connections of CONNECTIONS)
        await runLoad({ ...specOf(side, connections), warmupSeconds: 0, durationSeconds: SIDE_WARMUP_SECONDS });
    const ratios: PeerRatio[] = [];
    for (const connections of CONNECTIONS) {
      // Each side's CPU per read at this concurrency, over its measured runs only (not the warm-ups).
      const meters = Object.fromEntries(Object.entries(sides).map(([name, side]) => [name, new CostMeter(side.pid)])) as Record<
        SideName,
        CostMeter
      >;
      const timed = async (name: SideName): Promise<RawRun> => {
        let start: CpuReading | undefined;
        const run = await runLoad(specOf(sides[name], connections), () => {
          start = meters[name].read();
        });
        meters[name].add(start, run.latencies.length);
        return run;
      };
      for (const peer of ['PostGraphile without auth', 'PostGraphile with JWT'] as const) {
        const load = os.loadavg();
        const ours: RawRun[] = [];
        const theirs: RawRun[] = [];
        for (let round = 0; round < options.rounds; round++) {
          // The order swaps every round, so a burst of other work lands on both sides alike.
          if (round % 2 === 0) {
            ours.push(await timed('ours'));
            theirs.push(await timed(peer));
          } else {
            theirs.push(await timed(peer));
            ours.push(await timed('ours'));
          }
        }
        const perRound = ours.map((run, i) => combine([run]).requestsPerSecond / combine([theirs[i] ?? run]).requestsPerSecond);
        const failures = [...ours, ...theirs].reduce((sum, run) => sum + run.failures, 0);
        if (failures > 0) throw new Error(`single read × ${connections} against ${peer}: ${failures} failed requests`);
        const ratio: PeerRatio = {
          measure: 'GraphQL single resource, 5 fields',
          peer,
          connections,
          ours: combine(ours).requestsPerSecond,
          theirs: combine(theirs).requestsPerSecond,
          median: percentile(
            [...perRound].sort((a, b) => a - b),
            50,
          ),
          rounds: perRound,
          load,
        };
        ratios.push(ratio);
        say(formatRatio(ratio));
      }
      say(
        formatReadCosts(
          connections,
          Object.entries(meters).map(([name, meter]) => [name, meter.perRequest()] as const),
        ),
      );
    }
    return ratios;
  } finally {
    for (const peer of peers) await peer.close();
    await service.stop();
  }
}

/** One line per ratio: the median, each round's, the requests/s of both sides and the load. */
export function formatRatio(r: PeerRatio): string {
  return (
    `[peers] ${r.measure} × ${r.connections} vs ${r.peer}: ${r.median.toFixed(2)}× (rounds ${r.rounds.map((x) => x.toFixed(2)).join(', ')}; ` +
    `ours ${Math.round(r.ours)} rps, theirs ${Math.round(r.theirs)} rps; load ${r.load.map((l) => l.toFixed(2)).join(' ')})`
  );
}

/**
 * Creates measured per side: warm-up writes first, then rounds of this many writes by this many
 * clients. The target is at 8 clients; other counts (`--creates-clients`) show how each side's rate
 * follows the clients' concurrency.
 */
const CREATES = { clients: 8, rounds: 3, writesPerRound: 400, warmupWrites: 1000 } as const;

/** What one side's request cost the machine, per request: its own process's CPU and PostgreSQL's. */
export interface CpuCosts {
  readonly serviceMicros: number | undefined;
  readonly postgresMicros: number | undefined;
}

/** The creates ratio and each side's CPU per write (Linux only; undefined elsewhere). */
export interface CreatesResult {
  readonly ratio: PeerRatio;
  readonly costs: { readonly ours: CpuCosts; readonly emmett: CpuCosts };
}

/** CPU read at the start of a measured stretch: a side's process and PostgreSQL's. */
interface CpuReading {
  readonly service: number | undefined;
  readonly postgres: ReadonlyMap<number, number> | undefined;
}

const readCpu = (pid: number | undefined): CpuReading => ({ service: processCpuMicros(pid), postgres: postgresCpuByProcess() });

/** Sums CPU over a side's measured stretches: what its process and PostgreSQL spent while it alone was loaded. */
class CostMeter {
  private service = 0;
  private postgres = 0;
  private requests = 0;
  private known = true;

  constructor(private readonly pid: number | undefined) {}

  read(): CpuReading {
    return readCpu(this.pid);
  }

  /** Adds what was spent since `start` (undefined: the stretch never began), for `requests` requests. */
  add(start: CpuReading | undefined, requests: number): void {
    const end = readCpu(this.pid);
    if (start?.service === undefined || start.postgres === undefined || end.service === undefined || end.postgres === undefined) {
      this.known = false;
    } else {
      this.service += end.service - start.service;
      this.postgres += postgresCpuBetween(start.postgres, end.postgres);
    }
    this.requests += requests;
  }

  async measure(requests: number, run: () => Promise<void>): Promise<void> {
    const start = this.read();
    await run();
    this.add(start, requests);
  }

  perRequest(): CpuCosts {
    if (!this.known || this.requests === 0) return { serviceMicros: undefined, postgresMicros: undefined };
    return { serviceMicros: this.service / this.requests, postgresMicros: this.postgres / this.requests };
  }
}

/**
 * Creates against Emmett: `POST /api/templates` by `clients` clients (8 unless told) to this
 * checkout's service (a child process, its admin token, read-your-writes, every rule) and to the
 * Emmett side (bench/peers/emmett-service.ts), each on a fresh database of its own on the same server.
 */
export async function benchCreates(
  adminUrl: string,
  say: (line: string) => void,
  rounds: number = CREATES.rounds,
  clients: number = CREATES.clients,
): Promise<CreatesResult> {
  const load = os.loadavg();
  const ourEnv = await benchEnvironment(await freshDatabase(adminUrl, 'infraledger_bench_peers_ours'));
  const emmettEnv = { DATABASE_URL: await freshDatabase(adminUrl, 'infraledger_bench_peers_emmett') };
  const started: ServiceProcess[] = [];
  try {
    const ours = await startService(REPOSITORY, ourEnv, 'ours', PRODUCTION_ENTRY);
    started.push(ours);
    const emmett = await startService(
      REPOSITORY,
      emmettEnv,
      'emmett',
      compiledEntry(fileURLToPath(new URL('./emmett-service.ts', import.meta.url))),
    );
    started.push(emmett);
    const writer = (name: string, service: ServiceProcess, headers: Record<string, string>) => {
      const post = keepAlivePost(service.baseUrl, clients);
      return async () => {
        const answer = await post('/api/templates', { 'content-type': 'application/json', ...headers }, templateBody(name));
        if (answer.status !== 201)
          throw new Error(`POST /api/templates (${name}) failed: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
      };
    };
    const sides = {
      ours: { write: writer('ours', ours, { authorization: `Bearer ${await adminToken(ours.baseUrl, ourEnv)}` }) },
      emmett: { write: writer('emmett', emmett, {}) },
    };
    for (const { write } of Object.values(sides)) await writeMany(CREATES.warmupWrites, clients, write);
    const runs = { ours: [] as { ms: number; latencies: number[] }[], emmett: [] as { ms: number; latencies: number[] }[] };
    const meters = { ours: new CostMeter(ours.child.pid), emmett: new CostMeter(emmett.child.pid) };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['ours', 'emmett'] as const) : (['emmett', 'ours'] as const);
      for (const name of order) {
        const { write } = sides[name];
        await meters[name].measure(CREATES.writesPerRound, async () => {
          runs[name].push(await writeMany(CREATES.writesPerRound, clients, write));
        });
      }
    }
    const rate = (run: { ms: number; latencies: number[] }): number => (run.latencies.length * 1000) / run.ms;
    const perRound = runs.ours.map((run, i) => rate(run) / rate(runs.emmett[i] ?? run));
    const ratio: PeerRatio = {
      measure: `creates (POST /api/templates, read-your-writes), ${String(clients)} clients`,
      peer: 'Emmett 0.42 (DeciderCommandHandler, inline raw-SQL projection, row read back, no auth)',
      connections: clients,
      ours: side(runs.ours).perSecond,
      theirs: side(runs.emmett).perSecond,
      median: percentile(
        [...perRound].sort((a, b) => a - b),
        50,
      ),
      rounds: perRound,
      load,
    };
    const costs = { ours: meters.ours.perRequest(), emmett: meters.emmett.perRequest() };
    say(formatRatio(ratio));
    say(formatCosts(costs));
    return { ratio, costs };
  } finally {
    for (const service of started) await service.stop();
  }
}

const micros = (value: number | undefined): string => (value === undefined ? '—' : `${Math.round(value).toLocaleString('en-US')} µs`);

const costsOf = (c: CpuCosts): string => `${micros(c.serviceMicros)} in its process, ${micros(c.postgresMicros)} in PostgreSQL`;

/** CPU per write of both sides: the service's own process and PostgreSQL's processes while it wrote. */
export function formatCosts(costs: CreatesResult['costs']): string {
  return `[peers] CPU per create: ours ${costsOf(costs.ours)}; Emmett ${costsOf(costs.emmett)}`;
}

/**
 * CPU per single read of every side at one concurrency, over its measured runs: at 1 client a read's
 * time is mostly waiting (the client, the service and PostgreSQL waking each other across the
 * cores), at 32 the cores are full and CPU per read decides the rate.
 */
function formatReadCosts(connections: number, costs: readonly (readonly [string, CpuCosts])[]): string {
  return `[peers] CPU per single read × ${String(connections)}: ${costs.map(([name, c]) => `${name} ${costsOf(c)}`).join('; ')}`;
}
