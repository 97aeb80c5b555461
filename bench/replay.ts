import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { SqlPool } from '../src/storage/pool.js';
import type { EventCodec } from '../src/events/codec.js';
import type { EventStore, StreamWrite } from '../src/events/store/port.js';
import type { Logger } from '../src/log.js';
import { rebuildProjection } from '../src/projections/rebuild.js';
import { ProjectionRunner } from '../src/projections/runner.js';
import { encode, friendlyNames, templateCreated, templateFollowUp, templateStream, type TemplateNames } from './fixtures.js';
import { percentile, perSecond } from './stats.js';
import { templateEntity } from '../src/model/template.js';
import { projectionOf } from '../src/projections/declared.js';

const templatesProjection = projectionOf(templateEntity);

/** The store, pool and codec a replay runs against. */
export interface ReplayDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  /** Events per projection batch (the service's PROJECTION_BATCH_SIZE default is 500). */
  readonly batchSize: number;
}

/** What seeding wrote. */
export interface SeedResult {
  readonly events: number;
  readonly head: bigint;
  readonly ms: number;
}

/** What one timed replay measured. */
export interface ReplayResult {
  readonly events: number;
  readonly ms: number;
  readonly eventsPerSecond: number;
}

/**
 * Writes `templates` TemplateCreated events and one follow-up event per template (2 × `templates` in
 * all), encoded by the codec. Each `appendMany` holds the creations of one chunk and the follow-ups of
 * the previous chunk, so creations and changes interleave in `$all` as they would in real traffic.
 */
export async function seedTemplates(
  store: EventStore,
  codec: EventCodec,
  templates: number,
  chunk = 2500,
  names: TemplateNames = friendlyNames,
): Promise<SeedResult> {
  const started = performance.now();
  const ids = Array.from({ length: templates }, () => randomUUID());
  const now = new Date();
  let events = 0;
  let head = 0n;
  for (let from = 0; from < templates + chunk; from += chunk) {
    const writes: StreamWrite[] = [];
    for (let i = from; i < Math.min(from + chunk, templates); i++) {
      const id = ids[i] as string;
      // Every 20th template derives from one created in an earlier chunk.
      const parent = i >= chunk && i % 20 === 0 ? ids[i - chunk] : undefined;
      writes.push({
        streamId: templateStream(id),
        expectedRevision: 'no_stream',
        events: [encode(codec, templateCreated(id, i, parent, names), i, now)],
      });
    }
    for (let i = from - chunk; i >= 0 && i < Math.min(from, templates); i++) {
      const id = ids[i] as string;
      writes.push({ streamId: templateStream(id), expectedRevision: 0n, events: [encode(codec, templateFollowUp(i), i, now)] });
    }
    if (writes.length === 0) continue;
    const result = await store.appendMany(writes);
    events += writes.length;
    head = result.position;
  }
  return { events, head, ms: performance.now() - started };
}

/** Times `rebuildProjection` of the templates projection over everything in the store. */
export async function benchRebuild(deps: ReplayDeps): Promise<ReplayResult> {
  const started = performance.now();
  // The rebuild uses its own (larger) default batch; the live runner uses deps.batchSize.
  const result = await rebuildProjection({ pool: deps.pool, store: deps.store, codec: deps.codec, log: deps.log }, templatesProjection);
  const ms = performance.now() - started;
  return { events: result.events, ms, eventsPerSecond: perSecond(result.events, ms) };
}

/** How long fresh events took to become readable in `$all` while a rebuild ran (ms). */
export interface ReadableDuringRebuild {
  readonly probes: number;
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

/** Between two probes of benchReadableDuringRebuild. */
const PROBE_INTERVAL_MS = 10;

/**
 * Rebuilds the templates projection while appending one event every 10 ms (of a type no projection
 * reads) and timing how long each takes to become readable in `$all`: a rebuild's transactions,
 * index builds included, must hold no reader back (docs/decisions/0006-concurrent-append.md), or
 * every write's read-your-writes wait would take as long. The probes read from this process, whose
 * event loop the rebuild's replay shares, so a few milliseconds are the loop's, not the database's.
 */
export async function benchReadableDuringRebuild(deps: ReplayDeps): Promise<ReadableDuringRebuild> {
  let rebuilding = true;
  const rebuild = rebuildProjection({ pool: deps.pool, store: deps.store, codec: deps.codec, log: deps.log }, templatesProjection).finally(
    () => {
      rebuilding = false;
    },
  );
  const waits: number[] = [];
  try {
    while (rebuilding) {
      const { position } = await deps.store.appendMany([
        {
          streamId: `bench-probe-${randomUUID()}`,
          expectedRevision: 'no_stream',
          events: [{ eventId: randomUUID(), type: 'BenchProbed', data: {}, metadata: {} }],
        },
      ]);
      const started = performance.now();
      while (!(await deps.store.readAll({ after: position - 1n, limit: 1 })).some((e) => e.position === position)) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  } finally {
    await rebuild;
  }
  const sorted = waits.sort((a, b) => a - b);
  return { probes: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), max: sorted.at(-1) ?? Number.NaN };
}

/** Resolves once `runner` has applied `head`; rejects if it fails or `timeoutMs` passes first. */
function reached(runner: ProjectionRunner, head: bigint, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      runner.progress.off('position', onPosition);
      runner.progress.off('failed', onFailed);
      if (error) reject(error);
      else resolve();
    };
    const onPosition = (position: bigint): void => {
      if (position >= head) finish();
    };
    const onFailed = (error: Error): void => finish(error);
    const timer = setTimeout(
      () =>
        finish(
          new Error(`the runner did not reach position ${head} within ${timeoutMs} ms (at ${String(runner.position)}, ${runner.state})`),
        ),
      timeoutMs,
    );
    runner.progress.on('position', onPosition);
    runner.progress.on('failed', onFailed);
    if (runner.position !== undefined && runner.position >= head) finish();
  });
}

/**
 * Times a live `ProjectionRunner` catching up from an empty read model and no checkpoint to `head`.
 * The caller empties the templates tables and the checkpoint first.
 */
export async function benchRunnerCatchUp(deps: ReplayDeps, events: number, head: bigint, timeoutMs: number): Promise<ReplayResult> {
  const runner = new ProjectionRunner(templatesProjection, { ...deps, retryDelayMs: 100 });
  const started = performance.now();
  let ms: number;
  runner.start();
  try {
    await reached(runner, head, timeoutMs);
    ms = performance.now() - started;
  } finally {
    await runner.stop();
  }
  return { events, ms, eventsPerSecond: perSecond(events, ms) };
}

/** Empties the templates read model and forgets its checkpoint, so a runner starts from zero. */
export async function resetTemplatesProjection(pool: SqlPool): Promise<void> {
  await pool.query(`TRUNCATE ${templatesProjection.tables.join(', ')}`);
  await pool.query('DELETE FROM projection_checkpoints WHERE name = $1', [templatesProjection.name]);
}

/** Counts live template rows, to check that a replay really built the read model. */
export async function countTemplates(pool: SqlPool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM templates WHERE deleted_at IS NULL');
  return rows[0]?.n ?? 0;
}
