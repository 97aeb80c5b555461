import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../src/log.js';
import { formatSeconds } from '../stats.js';
import { countCatalog, ensureDatabase, isLargeEnough, runSeed, sampleResourceIds, topUp, type CatalogSize } from './catalog.js';
import { openFloor, baseUrlOf, type FloorServer } from './floor.js';
import { combine, runLoad, type LoadSpec, type RawRun } from './load.js';
import { BENCH_QUERIES, type BenchQuery } from './queries.js';
import type { Measurement } from './report.js';
import { adminToken, benchEnvironment, catchUp, openBenchService, type BenchService } from './service.js';

/** What the GraphQL part measures, and on what. */
export interface GraphqlBenchOptions {
  readonly databaseUrl: string;
  readonly size: CatalogSize;
  readonly connections: readonly number[];
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** Each side runs this many times per cell, taking turns with the others; the cell sums them. */
  readonly rounds: number;
  /** The queries to measure, by name (all when not told). */
  readonly queries?: readonly string[] | undefined;
}

/** Everything the GraphQL part measured, with the conditions of the run. */
export interface GraphqlResults {
  readonly catalog: CatalogSize;
  readonly measurements: readonly Measurement[];
  /** SQL statements the service sent for one request of each query (authentication included). */
  readonly statements: ReadonlyMap<string, number>;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
}

const number = new Intl.NumberFormat('en-US');
const showSize = (s: CatalogSize): string =>
  `${number.format(s.resources)} resources, ${number.format(s.templates)} templates, ${number.format(s.executors)} executors`;
/** The seed's measured rate with projections running (docs/operations.md, "Demo and benchmark data"), for the estimate. */
const SEED_COMMANDS_PER_SECOND = 470;
const COMMANDS_PER_RESOURCE = 5;

/**
 * Statistics as autovacuum would have them after a bulk load: without them, plans made while the
 * seed was writing (a few rows per table) would measure the planner, not the code.
 */
async function analyze(service: BenchService): Promise<void> {
  await service.services.pool.query('ANALYZE');
}

/** Seeds through a child process until the catalog is large enough; returns its final size (the peers part too). */
export async function ensureCatalog(
  service: BenchService,
  env: Record<string, string>,
  want: CatalogSize,
  say: (line: string) => void,
): Promise<CatalogSize> {
  await catchUp(service, say);
  const have = await countCatalog(service.services.pool);
  say(`catalog in the bench database: ${showSize(have)}`);
  if (isLargeEnough(have, want)) {
    await analyze(service);
    return have;
  }
  const seed = topUp(have, want);
  const minutes = Math.ceil((seed.resources * COMMANDS_PER_RESOURCE) / SEED_COMMANDS_PER_SECOND / 60);
  say(
    `seeding ${showSize(seed)} through the command path (npm run seed, a child process); expect about ${minutes} min or more on a busy ` +
      `machine`,
  );
  await runSeed(env, seed, (line) => say(`  [seed] ${line}`));
  await catchUp(service, say);
  await analyze(service);
  const after = await countCatalog(service.services.pool);
  say(`catalog after seeding: ${showSize(after)}`);
  return after;
}

/** POSTs one body and returns the parsed answer (for the equivalence check). */
export async function post(url: string, body: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}: ${await response.text()}`);
  return response.json();
}

/**
 * Before timing anything: each query answers the same JSON from both servers (so the floor is a fair
 * comparison), and how many statements the service sends for it.
 */
async function verify(
  service: BenchService,
  floor: FloorServer,
  query: BenchQuery,
  bodies: readonly string[],
  headers: Record<string, string>,
): Promise<number> {
  const floorUrl = `${baseUrlOf(floor.app)}/floor/${query.name}`;
  // The fewest seen: the projection runners and the position waiter share the counter now and then.
  let statements = Number.POSITIVE_INFINITY;
  for (const body of [...bodies.slice(0, 5), ...bodies.slice(0, 5)]) {
    const before = service.statements();
    const graphql = await post(`${service.baseUrl}/api/graphql`, body, headers);
    statements = Math.min(statements, service.statements() - before);
    const expected = await post(floorUrl, body, {});
    const prepared = await post(floorUrl.replace('/floor/', '/floor-prepared/'), body, {});
    if (!isDeepStrictEqual(graphql, expected) || !isDeepStrictEqual(prepared, expected)) {
      throw new Error(
        `query ${query.name}: the GraphQL answer differs from the ` +
          `floor's:\n${JSON.stringify(graphql).slice(0, 400)}\n${JSON.stringify(expected).slice(0, 400)}`,
      );
    }
  }
  return statements;
}

/** Runs the part: prepares the database, then each query × concurrency against the service and the floor. */
export async function benchGraphql(options: GraphqlBenchOptions, log: Logger, say: (line: string) => void): Promise<GraphqlResults> {
  const shown = new URL(options.databaseUrl);
  shown.password = shown.password === '' ? '' : '***';
  if (await ensureDatabase(options.databaseUrl)) say(`created the bench database ${shown.toString()}`);
  const env = await benchEnvironment(options.databaseUrl);
  const service = await openBenchService(env, log);
  let floor: FloorServer | undefined;
  try {
    const catalog = await ensureCatalog(service, env, options.size, say);
    const token = await adminToken(service.baseUrl, env);
    const headers = { authorization: `Bearer ${token}` };
    const now = service.services.now;
    floor = await openFloor(options.databaseUrl, BENCH_QUERIES, (header) => service.services.authenticator.authenticate(header, now()));
    const ids = { resourceIds: await sampleResourceIds(service.services.pool, 1000) };
    if (ids.resourceIds.length === 0) throw new Error('the bench database holds no resources');

    const statements = new Map<string, number>();
    const measurements: Measurement[] = [];
    const loadBefore = os.loadavg();
    say(
      `load average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (${os.availableParallelism()} CPUs, shared by the server ` +
        `and the load generator)`,
    );
    const unknown = options.queries?.filter((name) => !BENCH_QUERIES.some((query) => query.name === name)) ?? [];
    if (unknown.length > 0) throw new Error(`no query ${unknown.join(', ')} (queries: ${BENCH_QUERIES.map((q) => q.name).join(', ')})`);
    for (const query of BENCH_QUERIES.filter((q) => options.queries?.includes(q.name) ?? true)) {
      const bodies = query.bodies(ids);
      statements.set(query.name, await verify(service, floor, query, bodies, headers));
      for (const connections of options.connections) {
        const spec = (url: string, extra: Record<string, string>): LoadSpec => ({
          url,
          headers: extra,
          bodies,
          connections,
          warmupSeconds: options.warmupSeconds,
          durationSeconds: options.durationSeconds,
        });
        const started = Date.now();
        const graphqlUrl = `${service.baseUrl}/api/graphql`;
        const floorUrl = `${baseUrlOf(floor.app)}/floor/${query.name}`;
        const floorAuthUrl = `${baseUrlOf(floor.app)}/floor-auth/${query.name}`;
        const floorPreparedUrl = `${baseUrlOf(floor.app)}/floor-prepared/${query.name}`;
        // The sides take turns, round after round, so a burst of other work on the machine lands on all of them.
        const runs = { graphql: [] as RawRun[], floor: [] as RawRun[], floorPrepared: [] as RawRun[], floorAuth: [] as RawRun[] };
        for (let round = 0; round < options.rounds; round++) {
          runs.graphql.push(await runLoad(spec(graphqlUrl, headers)));
          runs.floor.push(await runLoad(spec(floorUrl, {})));
          // The floor with prepared statements, as the service runs its own: the best plain pg can do.
          runs.floorPrepared.push(await runLoad(spec(floorPreparedUrl, {})));
          // The floor behind the service's authentication: how much of the gap authentication is.
          runs.floorAuth.push(await runLoad(spec(floorAuthUrl, headers)));
        }
        const graphql = combine(runs.graphql);
        const floorResult = combine(runs.floor);
        const floorPrepared = combine(runs.floorPrepared);
        const floorAuth = combine(runs.floorAuth);
        for (const [side, result] of [
          ['graphql', graphql],
          ['floor', floorResult],
          ['floor prepared', floorPrepared],
          ['floor+auth', floorAuth],
        ] as const) {
          if (result.requests === 0) throw new Error(`query ${query.name}, ${connections} clients, ${side}: no request was answered`);
          if (result.failures > 0)
            throw new Error(`query ${query.name}, ${connections} clients, ${side}: ${result.failures} failed requests`);
        }
        measurements.push({ query: query.name, connections, graphql, floor: floorResult, floorPrepared, floorAuth });
        say(
          `[graphql] ${query.name} × ${connections}: graphql ${Math.round(graphql.requestsPerSecond)} rps (p99 ${graphql.p99.toFixed(1)} ms), ` +
            `floor ${Math.round(floorResult.requestsPerSecond)} rps (p99 ${floorResult.p99.toFixed(1)} ms), prepared ` +
            `${Math.round(floorPrepared.requestsPerSecond)} rps, floor+auth ${Math.round(floorAuth.requestsPerSecond)} rps in ` +
            formatSeconds(Date.now() - started),
        );
      }
    }
    return { catalog, measurements, statements, loadBefore, loadAfter: os.loadavg() };
  } finally {
    await floor?.close();
    await service.close();
  }
}

/** Client counts each query is measured at. */
export const GRAPHQL_CONNECTIONS: readonly number[] = [1, 32];

/** The server of the store part's admin URL, database `infraledger_bench` (kept between runs: seeding is slow). */
export function defaultGraphqlDatabaseUrl(adminUrl: string): string {
  const url = new URL(adminUrl);
  url.pathname = '/infraledger_bench';
  return url.toString();
}

/** The conditions of the run, printed under the table. */
export function graphqlNotes(
  results: GraphqlResults,
  databaseUrl: string,
  options: Pick<GraphqlBenchOptions, 'warmupSeconds' | 'durationSeconds' | 'rounds'>,
): string[] {
  const shown = new URL(databaseUrl);
  shown.password = shown.password === '' ? '' : '***';
  const cpus = os.cpus();
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  const statements = [...results.statements].map(([query, n]) => `${query} ${n}`).join(', ');
  return [
    `catalog: ${showSize(results.catalog)} in ${shown.toString()}`,
    `node ${process.version}, ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown model'}), ${os.platform()} ` +
      os.arch(),
    `the servers (one process), autocannon (a child process) and PostgreSQL share these ${os.availableParallelism()} CPUs: at 32 ` +
      `clients the load generator takes CPU from the server`,
    `load average (1/5/15 min) before ${load(results.loadBefore)}, after ${load(results.loadAfter)}: other work on the machine makes ` +
      `the figures noisy`,
    `graphql: the real service (openServices + buildApp, LOG_LEVEL=warn), admin's bearer token, authenticated per request, its ` +
      `statements prepared; floor: bare Fastify + pg, one statement, no auth;`,
    `floor prep.: the floor's statement prepared once per connection (the target is against the floor, as issue 5 defines it; this ` +
      `column shows what preparing gives plain pg)`,
    `floor+auth: the plain floor behind the service's authenticator (EdDSA token check, remembered per token, + 1 session lookup): ` +
      `what authentication costs`,
    `SQL statements per GraphQL request (authentication included): ${statements}; the floor sends 1`,
    `each cell: ${options.rounds} round(s) per side, taking turns, each ${options.warmupSeconds} s warm-up + ` +
      `${options.durationSeconds} s measured; (a) rotates over ${number.format(1000)} resource ids; p50/p99 per response, in ms`,
    `targets (issue 5): at 32 clients GraphQL ≥ 50% of the floor's requests/s on every query, and p99 < 50 ms on the 100-row page (d)`,
  ];
}
