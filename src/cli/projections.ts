#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { allProjections, findProjection } from '../projections/registry.js';
import { rebuildProjection } from '../projections/rebuild.js';
import type { Logger } from '../log.js';
import { openEventLog, type EventLog } from '../projections/event-log.js';
import { createProgress, stdoutProgress } from './progress.js';

const USAGE = `usage: npm run projections -- status | rebuild [name]
  status           each projection's state, checkpoint, lag behind the event store, and last error
  rebuild [name]   replay every event into shadow tables and swap them in (all projections when no name)
projections: ${allProjections.map((p) => p.name).join(', ')}`;

/** Lag is counted event by event (positions are not dense), up to this many. */
const LAG_COUNT_LIMIT = 1_000_001;

async function status(services: EventLog): Promise<void> {
  const head = await services.store.headPosition();
  const { rows } = await services.pool.query<{
    name: string;
    position: string | null;
    status: string;
    error: string | null;
    failed_event_id: string | null;
    updated_at: Date;
  }>('SELECT name, position, status, error, failed_event_id, updated_at FROM projection_checkpoints ORDER BY name');
  console.log(`event store head: ${head?.toString() ?? '(empty)'}`);
  for (const projection of allProjections) {
    const row = rows.find((r) => r.name === projection.name);
    const position = row?.position == null ? undefined : BigInt(row.position);
    const lag = head === undefined ? 0 : await services.store.countAfter(position, LAG_COUNT_LIMIT);
    console.log(
      [
        projection.name.padEnd(20),
        (row?.status ?? 'never run').padEnd(10),
        `position ${position?.toString() ?? '-'}`.padEnd(20),
        `lag ${lag >= LAG_COUNT_LIMIT ? `${LAG_COUNT_LIMIT - 1}+` : String(lag)}`.padEnd(14),
        row?.error ? `error: ${row.error}` : '',
      ].join(' '),
    );
  }
}

async function rebuild(services: EventLog, log: Logger, name: string | undefined): Promise<void> {
  const targets = name === undefined ? allProjections : [findProjection(name)];
  for (const projection of targets) {
    if (!projection) throw new ConfigError(`unknown projection "${name ?? ''}"\n${USAGE}`);
    const progress = createProgress(`rebuild ${projection.name}`, 'events', stdoutProgress());
    const result = await rebuildProjection(
      {
        pool: services.pool,
        store: services.store,
        codec: services.codec,
        log,
        onProgress: (replayed, total) => progress.update(replayed, total),
      },
      projection,
    );
    progress.finish(result.events);
    const folded = result.how === 'sql' ? `folded ${result.events} events in SQL` : `replayed ${result.events} events`;
    console.log(`${result.projection}: ${folded}, now at position ${result.position?.toString() ?? '-'}`);
  }
}

async function main(): Promise<number> {
  const [command, name] = process.argv.slice(2);
  if (command !== 'status' && command !== 'rebuild') {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const log = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  // Only the event log: the tool needs no HTTP, GraphQL or sign-in code, and starts without loading it.
  const services = await openEventLog(config, log, { requireExistingDataDir: true });
  try {
    if (command === 'status') await status(services);
    else await rebuild(services, log, name);
    return 0;
  } finally {
    await services.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
