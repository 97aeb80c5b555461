/**
 * `npm run bench [-- store|graphql]`: append and projection-replay throughput on embedded PGlite and
 * on a real PostgreSQL server (BENCH_DATABASE_URL, a throwaway database per run), through the
 * service's own event store, codec, runner and rebuild code; and the GraphQL API against hand-written
 * SQL on a seeded catalog (BENCH_GRAPHQL_DATABASE_URL, kept between runs).
 */
import os from 'node:os';
import type { EventCodec } from '../src/events/codec.js';
import { createPostgresEventStore } from '../src/events/store/postgres.js';
import { createLogger, type Logger } from '../src/log.js';
import { benchAppends, storeAppender, type AppendResult } from './appends.js';
import { benchLists, formatLists, NAME_STYLES } from './lists.js';
import { sharedTrigramNames } from './fixtures.js';
import { benchRebuildFloor } from './rebuild-floor.js';
import { benchCreates, benchPeers } from './peers/bench.js';
import { appendTargetLines, benchAppendSides, benchGrowth, formatGrowth, formatSideRows } from './store-sides.js';
import {
  BASE_COMMIT,
  benchCommands,
  COMMANDS_DEFAULTS,
  DURABLE_BASE_COMMIT,
  formatCommands,
  type CommandsOptions,
} from './commands/bench.js';
import { DEFAULT_POSTGRES_URL, openPglite, openPostgres, probePostgres, type BenchDatabase } from './database.js';
import { benchCodec } from './fixtures.js';
import { benchLive, formatLive, LIVE_DEFAULTS } from './graphql/live.js';
import { benchGraphql, defaultGraphqlDatabaseUrl, GRAPHQL_CONNECTIONS, graphqlNotes } from './graphql/bench.js';
import { checksOf, formatGraphqlChecks, formatGraphqlTable, GRAPHQL_TARGETS } from './graphql/report.js';
import { BENCH_USAGE, BenchUsageError, parseBenchArgs, type BenchOptions } from './options.js';
import {
  benchReadableDuringRebuild,
  benchRebuild,
  benchRunnerCatchUp,
  countTemplates,
  resetTemplatesProjection,
  seedTemplates,
  type ReplayDeps,
  type ReplayResult,
} from './replay.js';
import { REBUILD_BATCH } from '../src/projections/rebuild.js';
import { formatTable, type StoreColumn, type StoreResults } from './report.js';
import { formatMs, formatRate, formatSeconds } from './stats.js';
import { checkTargets, formatTargets } from './targets.js';

/** Workload sizes: fixed, so runs compare. */
const SINGLE_WRITER_APPENDS = 3000;
const WRITERS = 8;
const APPENDS_PER_WRITER = 1000;
const TEMPLATES = 50_000; // × 2 events each = 100,000 replayed events
const BATCH_SIZE = 500; // PROJECTION_BATCH_SIZE's default
const CATCH_UP_TIMEOUT_MS = 120_000;

const say = (line: string): void => void process.stdout.write(`${line}\n`);

const appendLine = (a: AppendResult): string =>
  `${a.writers} × ${a.appendsPerWriter} appends: ${formatRate(a.eventsPerSecond)} events/s in ${formatSeconds(a.ms)}, p50 ` +
  `${formatMs(a.p50)} ms, p99 ${formatMs(a.p99)} ms`;

const replayLine = (what: string, r: ReplayResult): string =>
  `${what}: ${formatRate(r.events)} events in ${formatSeconds(r.ms)}, ${formatRate(r.eventsPerSecond)} events/s`;

/** Runs every measurement against one fresh database. */
async function benchStore(db: BenchDatabase, codec: EventCodec, log: Logger): Promise<StoreResults> {
  const tag = `[${db.kind}]`;
  const store = createPostgresEventStore({ pool: db.pool, log });
  try {
    // Warm-up: opens the pool's connections and lets V8 and the server's caches settle. Not reported.
    const append = storeAppender(store);
    await benchAppends(append, codec, WRITERS, 25);
    const append1 = await benchAppends(append, codec, 1, SINGLE_WRITER_APPENDS);
    say(`${tag} ${appendLine(append1)}`);
    const append8 = await benchAppends(append, codec, WRITERS, APPENDS_PER_WRITER);
    say(`${tag} ${appendLine(append8)}`);

    await db.reset();
    const seed = await seedTemplates(store, codec, TEMPLATES);
    // Statistics as autovacuum would have them after a bulk load.
    await db.pool.query('ANALYZE');
    say(`${tag} seeded ${formatRate(seed.events)} template events (head ${seed.head}) in ${formatSeconds(seed.ms)}`);

    const deps: ReplayDeps = { pool: db.pool, store, codec, log, batchSize: BATCH_SIZE };
    const rebuild = await benchRebuild(deps);
    await expectTemplates(db, 'rebuild');
    say(`${tag} ${replayLine('rebuildProjection', rebuild)}`);
    // Reported beside the first, which is the target's figure: a rebuild from the command line runs in a fresh process.
    const again = [await benchRebuild(deps), await benchRebuild(deps)];
    await expectTemplates(db, 'rebuild run again');
    const rebuildAgain = again.reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a));
    say(`${tag} ${replayLine('rebuildProjection run again, the better of 2', rebuildAgain)}`);

    await resetTemplatesProjection(db.pool);
    const runner = await benchRunnerCatchUp(deps, seed.events, seed.head, CATCH_UP_TIMEOUT_MS);
    await expectTemplates(db, 'runner catch-up');
    say(`${tag} ${replayLine('runner catch-up', runner)}`);

    // PGlite has one connection: there a probe waits its turn behind the rebuild, whatever it marks.
    if (db.kind === 'postgres') {
      const readable = await benchReadableDuringRebuild(deps);
      say(
        `${tag} a fresh event readable during a rebuild after p50 ${formatMs(readable.p50)} ms, p90 ${formatMs(readable.p90)} ms, max ` +
          `${formatMs(readable.max)} ms (${readable.probes} probes)`,
      );
    }

    return { version: db.version, append1, append8, seed, rebuild, rebuildAgain, runner };
  } finally {
    await store.close();
  }
}

/** A replay that left the read model incomplete measured nothing: fail loudly. */
async function expectTemplates(db: BenchDatabase, after: string): Promise<void> {
  const rows = await countTemplates(db.pool);
  if (rows !== TEMPLATES) throw new Error(`after the ${after} the templates table holds ${rows} rows, expected ${TEMPLATES}`);
}

/** Opens, measures and always closes (dropping the database on a server). */
async function runOn(open: () => Promise<BenchDatabase>, codec: EventCodec, log: Logger): Promise<StoreResults> {
  const db = await open();
  try {
    return await benchStore(db, codec, log);
  } finally {
    await db.close();
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The store part: both stores, then the table, the environment and the target check; false when a store failed. */
async function storePart(log: Logger): Promise<boolean> {
  const codec = benchCodec();
  const started = Date.now();
  const columns: StoreColumn[] = [];
  let failed = false;

  say('infraledger bench: event store appends and templates projection replay');
  say('');
  try {
    columns.push({ title: 'PGlite (memory)', results: await runOn(() => openPglite(log), codec, log) });
  } catch (error) {
    failed = true;
    say(`[pglite] FAILED: ${errorText(error)}`);
    columns.push({ title: 'PGlite (memory)', missing: `failed: ${errorText(error)}` });
  }

  const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const shownUrl = new URL(url);
  shownUrl.password = shownUrl.password === '' ? '' : '***';
  const unreachable = await probePostgres(url);
  if (unreachable !== undefined) {
    say(`[postgres] skipped: ${shownUrl.toString()} is unreachable (${unreachable})`);
    columns.push({ title: 'PostgreSQL', missing: `skipped, ${shownUrl.toString()} unreachable: ${unreachable}` });
  } else {
    try {
      columns.push({ title: 'PostgreSQL', results: await runOn(() => openPostgres(url, log), codec, log) });
    } catch (error) {
      failed = true;
      say(`[postgres] FAILED: ${errorText(error)}`);
      columns.push({ title: 'PostgreSQL', missing: `failed: ${errorText(error)}` });
    }
  }

  say('');
  for (const line of formatTable(columns)) say(line);
  say('');
  const cpus = os.cpus();
  say(
    `node ${process.version}, ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown model'}), ${os.platform()} ` +
      os.arch(),
  );
  say(`PostgreSQL: ${shownUrl.toString()} (throwaway database per run); PGlite: in memory`);
  say(
    `workload: appends ${SINGLE_WRITER_APPENDS} × 1 writer and ${APPENDS_PER_WRITER} × ${WRITERS} writers (1 event each, one stream per writer, exact expected revision); ` +
      `replay of ${formatRate(TEMPLATES * 2)} template events (rebuild: batches of ${formatRate(REBUILD_BATCH)}; runner catch-up: ` +
      `batches of ${BATCH_SIZE})`,
  );
  say(`figures are from one run on this machine (total ${formatSeconds(Date.now() - started)}); expect run-to-run variance`);
  say('');

  if (unreachable === undefined) {
    try {
      say(
        'appends on PostgreSQL: infraledger now, before (global append lock, migration 003) and Emmett, sides taking turns, 2 rounds each',
      );
      const sides = await benchAppendSides(url, codec, log, 2, say);
      say('');
      for (const line of formatSideRows(sides)) say(line);
      say('issue 20 append targets:');
      for (const line of appendTargetLines(sides)) say(line);
      say('');
      say('the log growing: 8 writers × 150 appends per side at each size, and 10,000 events of $all read from the middle');
      const growth = await benchGrowth(url, codec, log, say);
      say('');
      for (const line of formatGrowth(growth)) say(line);
      say('');
    } catch (error) {
      failed = true;
      say(`[appends] FAILED: ${errorText(error)}`);
    }
  }

  const postgres = columns.find((c) => c.title === 'PostgreSQL');
  if (postgres && 'results' in postgres) {
    const r = postgres.results;
    const checks = checkTargets({
      rebuildEventsPerSecond: r.rebuild.eventsPerSecond,
      runnerEventsPerSecond: r.runner.eventsPerSecond,
      append8EventsPerSecond: r.append8.eventsPerSecond,
    });
    say(`issue targets on PostgreSQL: ${checks.every((c) => c.met) ? 'all met' : 'NOT all met'}`);
    for (const line of formatTargets(checks)) say(line);
  } else {
    say('issue targets on PostgreSQL: not checked (no PostgreSQL figures)');
  }
  return !failed;
}

/** The GraphQL part: the service against the floor on a seeded catalog, then the table and the targets. */
async function graphqlPart(options: BenchOptions['graphql'], log: Logger): Promise<boolean> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const url = process.env.BENCH_GRAPHQL_DATABASE_URL ?? defaultGraphqlDatabaseUrl(adminUrl);
  say('infraledger bench: GraphQL (/api/graphql) against hand-written SQL behind a bare Fastify route (the floor)');
  say('');
  const unreachable = await probePostgres(adminUrl);
  if (unreachable !== undefined) {
    say(`[graphql] skipped: the PostgreSQL server is unreachable (${unreachable})`);
    return true;
  }
  const started = Date.now();
  try {
    const results = await benchGraphql({ ...options, databaseUrl: url, connections: GRAPHQL_CONNECTIONS }, log, say);
    say('');
    for (const line of formatGraphqlTable(results.measurements)) say(line);
    say('');
    for (const line of graphqlNotes(results, url, options)) say(line);
    say(`total ${formatSeconds(Date.now() - started)}; figures are from one run on this machine; expect run-to-run variance`);
    say('');
    const checks = results.measurements.flatMap(checksOf);
    say(`issue targets for GraphQL (at ${GRAPHQL_TARGETS.concurrency} clients): ${checks.every((c) => c.met) ? 'all met' : 'NOT all met'}`);
    for (const line of formatGraphqlChecks(checks)) say(line);
    return true;
  } catch (error) {
    say(`[graphql] FAILED: ${errorText(error)}`);
    return false;
  }
}

/** GraphQL writes and live changes (bench/graphql/live.ts), on a database of their own, made afresh. */
async function livePart(log: Logger): Promise<boolean> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const url = new URL(process.env.BENCH_LIVE_DATABASE_URL ?? adminUrl);
  if (!process.env.BENCH_LIVE_DATABASE_URL) url.pathname = '/infraledger_bench_live';
  say('infraledger bench: GraphQL writes (createTemplate vs POST /api/templates) and subscription fan-out');
  const unreachable = await probePostgres(adminUrl);
  if (unreachable !== undefined) {
    say(`[graphql live] skipped: the PostgreSQL server is unreachable (${unreachable})`);
    return true;
  }
  const started = Date.now();
  try {
    const results = await benchLive({ ...LIVE_DEFAULTS, databaseUrl: url.toString() }, log, say);
    for (const line of formatLive(results, LIVE_DEFAULTS)) say(line);
    say(`total ${formatSeconds(Date.now() - started)}; figures are from one run on this machine; expect run-to-run variance`);
    return true;
  } catch (error) {
    say(`[graphql live] FAILED: ${errorText(error)}`);
    return false;
  }
}

/** Runs the commands bench with `options` and prints its table; false when it failed. */
async function runCommands(options: CommandsOptions): Promise<boolean> {
  try {
    const results = await benchCommands(options, say);
    say('');
    for (const line of formatCommands(results, options)) say(line);
    return true;
  } catch (error) {
    say(`[commands] FAILED: ${errorText(error)}`);
    return false;
  }
}

/** The commands part: POST /api/templates, the service before issue 20 against this checkout. */
async function commandsPart(base: string | undefined): Promise<boolean> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  say('infraledger bench: commands (POST /api/templates), before against now');
  const unreachable = await probePostgres(adminUrl);
  if (unreachable !== undefined) {
    say(`[commands] skipped: the PostgreSQL server is unreachable (${unreachable})`);
    return true;
  }
  return runCommands({ adminUrl, baseRef: base ?? BASE_COMMIT, ...COMMANDS_DEFAULTS });
}

/**
 * The commands-embedded part: POST /api/templates in embedded mode, the service before the embedded
 * database was made durable (--base, default DURABLE_BASE_COMMIT) against this checkout: the cost of
 * an fsync per commit, with the group commit sharing it among concurrent writes.
 */
function commandsEmbeddedPart(base: string | undefined): Promise<boolean> {
  say('infraledger bench: commands-embedded (POST /api/templates on embedded PGlite), before against now');
  return runCommands({ adminUrl: undefined, baseRef: base ?? DURABLE_BASE_COMMIT, ...COMMANDS_DEFAULTS });
}

/**
 * A part that needs the PostgreSQL server at BENCH_DATABASE_URL: says what it measures, skips (saying
 * why) when the server is unreachable, and reports a failure as the part's, not the bench's.
 */
async function onPostgres(part: string, title: string, run: (adminUrl: string) => Promise<void>): Promise<boolean> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  say(`infraledger bench: ${part} ${title}`);
  const unreachable = await probePostgres(adminUrl);
  if (unreachable !== undefined) {
    say(`[${part}] skipped: the PostgreSQL server is unreachable (${unreachable})`);
    return true;
  }
  try {
    await run(adminUrl);
    return true;
  } catch (error) {
    say(`[${part}] FAILED: ${errorText(error)}`);
    return false;
  }
}

/** The lists part: name__like on 10,000 against 50,000 templates. */
const listsPart = (log: Logger): Promise<boolean> =>
  onPostgres('lists', '(GET /api/templates with name__like), 10,000 against 50,000 templates', async (adminUrl) => {
    for (const style of NAME_STYLES) {
      const result = await benchLists(adminUrl, style, log, say);
      say('');
      for (const line of formatLists(result)) say(line);
      say('');
    }
  });

/** The rebuild part: the built CLI's rebuild of 100,000 template events against its SQL floor. */
const rebuildPart = (log: Logger): Promise<boolean> =>
  onPostgres('rebuild', '(the templates read model over 100,000 events), the built CLI against its SQL floor', async (adminUrl) => {
    await benchRebuildFloor(adminUrl, log, say);
  });

/** The creates part: the peers part's creates against Emmett alone, with each side's CPU per write. */
const createsPart = (rounds: number, clients: number): Promise<boolean> =>
  onPostgres('creates', `(POST /api/templates against Emmett, ${String(clients)} clients), sides taking turns`, async (adminUrl) => {
    await benchCreates(adminUrl, say, rounds, clients);
  });

/** The peers part: the service against PostGraphile on the GraphQL part's catalog (bench/peers/bench.ts). */
const peersPart = (options: BenchOptions['graphql'], log: Logger): Promise<boolean> =>
  onPostgres('peers', '(the service against what its users would run instead), sides taking turns', async (adminUrl) => {
    const databaseUrl = process.env.BENCH_GRAPHQL_DATABASE_URL ?? defaultGraphqlDatabaseUrl(adminUrl);
    const ratios = [
      (await benchCreates(adminUrl, say)).ratio,
      ...(await benchPeers({ ...options, rounds: Math.max(options.rounds, 3), databaseUrl }, log, say)),
    ];
    // Against the floor of the same work, and against the catalog's own growth.
    const rebuild = await benchRebuildFloor(adminUrl, log, say);
    ratios.push({
      measure: 'rebuild of 100,000 template events (floor time ÷ ours)',
      peer: 'SQL floor: CREATE TABLE … AS SELECT + the same indexes',
      connections: 1,
      ours: Number.NaN,
      theirs: Number.NaN,
      median: rebuild.median,
      rounds: rebuild.pairs,
      load: rebuild.load,
    });
    const sharedNames = NAME_STYLES.find((style) => style.names === sharedTrigramNames);
    if (sharedNames) {
      const lists = await benchLists(adminUrl, sharedNames, log, say);
      const [small, large] = lists.sides;
      if (small && large) {
        ratios.push({
          measure: 'name__like p50 at 50,000 templates ÷ at 10,000 (res-N names; lower is better)',
          peer: 'the same searches on 10,000 templates',
          connections: 8,
          ours: large.perSecond,
          theirs: small.perSecond,
          median: large.p50 / small.p50,
          rounds: [],
          load: lists.load,
        });
      }
    }
    say('');
    say('| measure | clients | peer | ours / theirs (median) | rounds | load (1/5/15 min) |');
    say('|---|---|---|---|---|---|');
    for (const r of ratios) {
      const rounds = r.rounds.length > 0 ? r.rounds.map((x) => x.toFixed(2)).join(', ') : '—';
      say(
        `| ${r.measure} | ${r.connections} | ${r.peer} | **${r.median.toFixed(2)}×** | ${rounds} | ${r.load.map((l) => l.toFixed(2)).join(' ')} |`,
      );
    }
  });

/** The bench entry point: the parts named on the command line (all by default), one after the other. */
export async function main(argv: readonly string[]): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    if (error.cause === 'help') {
      say(BENCH_USAGE);
      return;
    }
    console.error(`${error.message}\n${BENCH_USAGE}`);
    process.exitCode = 1;
    return;
  }
  const log = createLogger({ level: 'warn' });
  let ok = true;
  if (options.parts.has('store')) ok = (await storePart(log)) && ok;
  if (options.parts.has('commands')) {
    say('');
    ok = (await commandsPart(options.base)) && ok;
  }
  if (options.parts.has('commands-embedded')) {
    say('');
    ok = (await commandsEmbeddedPart(options.base)) && ok;
  }
  if (options.parts.has('lists')) {
    say('');
    ok = (await listsPart(log)) && ok;
  }
  if (options.parts.has('rebuild')) {
    say('');
    ok = (await rebuildPart(log)) && ok;
  }
  if (options.parts.has('creates')) {
    say('');
    ok = (await createsPart(options.createsRounds, options.createsClients)) && ok;
  }
  if (options.parts.has('peers')) {
    say('');
    ok = (await peersPart(options.graphql, log)) && ok;
  }
  if (options.parts.has('store') && options.parts.has('graphql')) say('');
  if (options.parts.has('graphql')) ok = (await graphqlPart(options.graphql, log)) && ok;
  if (options.parts.has('graphql') || options.parts.has('graphql-live')) {
    say('');
    ok = (await livePart(log)) && ok;
  }
  if (!ok) process.exitCode = 1;
}

await main(process.argv.slice(2));
