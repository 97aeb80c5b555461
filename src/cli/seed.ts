#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { openServices } from '../services.js';
import { createPgPool } from '../storage/pool.js';
import { progressBar, progressLine, wholeNumber, type ProgressState } from './progress.js';
import { seedCatalog, type SeedProgress, type SeedSummary } from './seed/catalog.js';
import { waitForProjections } from './seed/catch-up.js';
import { parseSeedArgs, SEED_USAGE, SeedUsageError, type SeedOptions } from './seed/options.js';
import { SEEDED_KINDS } from './seed/writer.js';

/**
 * `npm run seed -- --resources 100000`: fills a realistic catalog through the command path, for
 * benchmarks and demos. Configured like the service (embedded PGlite in DATA_DIR, or DATABASE_URL).
 */
/** Events per projection batch while seeding (the service's default is 500). */
const SEED_PROJECTION_BATCH_SIZE = 2000;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function printSummary(summary: SeedSummary, catchUpMs: number): void {
  const plural = (kind: string): string => `${kind.replaceAll('_', ' ')}s`;
  console.log(`seeded "${summary.prefix}" in ${seconds(summary.elapsedMs)}:`);
  for (const kind of SEEDED_KINDS) console.log(`  ${plural(kind).padEnd(22)} ${wholeNumber(summary.counts[kind]).padStart(10)}`);
  const positions = [...summary.positions].sort(([, a], [, b]) => b - a);
  console.log(`  resources by state/status: ${positions.map(([position, n]) => `${position} ${wholeNumber(n)}`).join(' · ')}`);
  console.log(
    `  ${wholeNumber(summary.commands)} commands, ${wholeNumber(summary.events)} entity events (plus reservation and reference ` +
      `records)`,
  );
  console.log(
    `  ${wholeNumber(summary.commandsPerSecond)} commands/s; projections caught up ${seconds(catchUpMs)} after the last write (head ` +
      `${summary.head ?? '-'})`,
  );
}

/** A phase's report as the progress line shows it: its units, rate and ETA counted from the phase's start. */
const phaseState = (p: SeedProgress): ProgressState => ({
  label: `seed ${p.phase}`,
  done: p.done,
  total: p.total,
  unit: p.phase,
  elapsedMs: p.phaseElapsedMs,
  rate: p.phaseElapsedMs > 0 ? (p.done * 1000) / p.phaseElapsedMs : 0,
});

async function main(): Promise<number> {
  let options: SeedOptions;
  try {
    options = parseSeedArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof SeedUsageError)) throw error;
    console.error(`${error.message}\n${SEED_USAGE}`);
    return 1;
  }
  // The projections apply the seed's events as they come, in batches of 2,000 unless
  // PROJECTION_BATCH_SIZE says otherwise: at the service's 500 they fell 400,000 events behind a
  // 100,000-resource seed and took 37 s more to catch up after the last write.
  const config = loadConfig({ PROJECTION_BATCH_SIZE: String(SEED_PROJECTION_BATCH_SIZE), ...process.env });
  // The service's info lines (each projection starting, …) would drown the progress lines.
  const log = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  const target = config.embedded ? `embedded database in ${config.DATA_DIR}` : 'DATABASE_URL';
  console.log(
    `seeding ${wholeNumber(options.resources)} resources, ${options.templates} templates, ${options.executors} executors into the ` +
      `${target} (prefix "${options.prefix}", concurrency ${options.concurrency})`,
  );
  // Appends commit in parallel: a connection per command in flight (plus the projections' and a
  // spare) lets the concurrency count. Embedded PGlite is one connection whatever the pool.
  const pool = config.embedded
    ? undefined
    : createPgPool({
        connectionString: config.DATABASE_URL ?? '',
        log,
        max: options.concurrency + 4,
        prepareStatements: config.DATABASE_PREPARED_STATEMENTS,
      });
  // The seed writes as `admin`, whom the service's first start creates (with a password printed then).
  const services = await openServices(config, log, { runProjections: true, requireExistingDataDir: true, ...(pool && { pool }) });
  const tty = process.stdout.isTTY;
  try {
    const summary = await seedCatalog(services, options, {
      // A terminal gets one bar redrawn in place; logs a line every 3 s (rate and ETA of the phase).
      progressIntervalMs: tty ? 250 : 3000,
      onProgress: (p) => {
        const words = `${(tty ? progressBar : progressLine)(phaseState(p))} · ${wholeNumber(p.commandsPerSecond)} commands/s`;
        if (tty) process.stdout.write(`\r\u001b[2K${words}`);
        else console.log(words);
      },
      // Every phase ends with its line (on a terminal: the bar, finished), so logs show each count and time.
      onPhaseDone: (p) => console.log(`${tty ? '\r\u001b[2K' : ''}${progressLine(phaseState(p))}`),
    });
    const written = Date.now();
    console.log(`written; waiting for the projections to reach position ${summary.head ?? '-'}`);
    await waitForProjections(services, summary.head, (lag) =>
      console.log(`projections catching up: ${lag.projection} is ${wholeNumber(lag.behind)} behind`),
    );
    printSummary(summary, Date.now() - written);
    return 0;
  } finally {
    await services.close();
    await pool?.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`seed failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
