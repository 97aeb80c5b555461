import { findUserByIdentifier } from '../../auth/sign-in.js';
import { executorAggregate } from '../../commands/executor.js';
import { integrationAggregate } from '../../commands/integration.js';
import type { Aggregate } from '../../commands/decider.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import type { LifecycleCommand, LifecycleEntityState } from '../../commands/lifecycle-entity.js';
import type { DomainEvent } from '../../events/codec.js';
import { secretAggregate } from '../../commands/secret.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { storageAggregate } from '../../commands/storage.js';
import { templateAggregate } from '../../commands/template.js';
import type { Services } from '../../services.js';
import {
  CLOUDS,
  cloudOf,
  executorFixture,
  integrationFixtures,
  pick,
  secretFixtures,
  sourceCodeFixture,
  storageFixture,
  templateFixture,
  versionFixture,
  type Cloud,
} from './fixtures.js';
import type { SeedOptions } from './options.js';
import { runPool } from '../../run-pool.js';
import { planUnits, seedUnit, type ResourceContext, type SeededTemplate } from './resources.js';
import { createSeedWriter, SeedError, type SeededKind, type SeedWriter } from './writer.js';

/**
 * The seed analyses the database each time the resources it has written double from this many
 * (1,000, 2,000, 4,000, …). It grows the log and the read tables far faster than autovacuum analyses
 * them (where it runs at all); without statistics the planner prices a lookup of a few streams as a
 * share of the whole log and, past a point, reads all of it: at 35,000 resources a seed without this
 * had fallen from 1,850 to 750 commands/s.
 */
const FIRST_ANALYZE_AT = 1000;

/** Source codes per run, whatever the size (the modules a platform team keeps). */
export const SOURCE_CODES = 20;

/** A progress report: the phase running, how far it is, and the command rate since the last report. */
export interface SeedProgress {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
  readonly commands: number;
  readonly commandsPerSecond: number;
  /** Since the phase began (its rate and ETA are counted from there). */
  readonly phaseElapsedMs: number;
}

/** Progress callbacks of a seed run. */
export interface SeedHooks {
  readonly onProgress?: (progress: SeedProgress) => void;
  /** How often onProgress is called (default 3000 ms). */
  readonly progressIntervalMs?: number;
  /** Test seam: the resource count of the first ANALYZE (default FIRST_ANALYZE_AT), doubling after. */
  readonly analyzeFrom?: number;
  /** Called once as each phase ends, with its final count. */
  readonly onPhaseDone?: (progress: SeedProgress) => void;
}

/** What a seed run wrote, by kind and by resource state. */
export interface SeedSummary {
  readonly prefix: string;
  readonly counts: Readonly<Record<SeededKind, number>>;
  /** Resources by final `state/status`. */
  readonly positions: ReadonlyMap<string, number>;
  readonly commands: number;
  /** Entity events (reservation and reference records come on top). */
  readonly events: number;
  readonly elapsedMs: number;
  readonly commandsPerSecond: number;
  /** The event store's head after the last write (what the projections must reach). */
  readonly head: bigint | undefined;
}

const RUN: readonly LifecycleAction[] = ['execute', 'start', 'succeed'];

/** Provisions a storage or executor (no approval steps): execute, start, succeed. */
async function provision<F extends Record<string, unknown>>(
  writer: SeedWriter,
  what: string,
  aggregate: Aggregate<LifecycleCommand<F>, DomainEvent, LifecycleEntityState<F>>,
  id: string,
  approvalFlow: boolean,
): Promise<void> {
  for (const action of RUN) {
    const outputs = action === 'succeed' ? { provisionedBy: 'seed' } : undefined;
    await writer.run(`${action} on ${what}`, aggregate, id, { type: 'Act', data: { action, approvalFlow, outputs } });
  }
}

/**
 * Fills the catalog through the command path (exactly what REST would write: uniqueness, references
 * and events): integrations, secrets, storages, source codes, executors, templates with their
 * versions, then the resources, `options.concurrency` commands at a time.
 */
export async function seedCatalog(services: Services, options: SeedOptions, hooks: SeedHooks = {}): Promise<SeedSummary> {
  const deps = services.signIn;
  const admin = await findUserByIdentifier(deps, 'admin');
  if (!admin)
    throw new SeedError('there is no "admin" user to write as: open the services with bootstrap (the service creates it on first start)');
  const { prefix, concurrency } = options;
  const approvalFlow = services.config.APPROVAL_FLOW;
  const correlationId = prefix.startsWith('seed-') ? prefix : `seed-${prefix}`;
  const writer = createSeedWriter(deps, { actorId: admin.id, correlationId, causationId: null }, services.now);
  const started = Date.now();

  let phase = { name: 'integrations', done: 0, total: 0, startedAt: started };
  const phaseDone = (): void => {
    const elapsed = Date.now() - phase.startedAt;
    hooks.onPhaseDone?.({
      phase: phase.name,
      done: phase.done,
      total: phase.total,
      commands: writer.totals.commands,
      commandsPerSecond: (writer.totals.commands * 1000) / Math.max(1, Date.now() - started),
      phaseElapsedMs: elapsed,
    });
  };
  const pool = async (name: string, total: number, job: (index: number) => Promise<void>): Promise<void> => {
    phase = { name, done: 0, total, startedAt: Date.now() };
    await runPool(total, concurrency, async (index) => {
      await job(index);
      phase.done += 1;
    });
    phaseDone();
  };
  let last = { at: started, commands: 0 };
  const timer = setInterval(() => {
    const now = Date.now();
    const rate = ((writer.totals.commands - last.commands) * 1000) / Math.max(1, now - last.at);
    last = { at: now, commands: writer.totals.commands };
    hooks.onProgress?.({
      phase: phase.name,
      done: phase.done,
      total: phase.total,
      commands: writer.totals.commands,
      commandsPerSecond: rate,
      phaseElapsedMs: now - phase.startedAt,
    });
  }, hooks.progressIntervalMs ?? 3000);
  timer.unref();

  try {
    // Integrations: by provider, the first of each cloud is the one entities use.
    const integrations = integrationFixtures(prefix);
    const integrationIds = new Map<string, string>();
    await pool('integrations', integrations.length, async (i) => {
      const fields = integrations[i];
      if (!fields) return;
      const id = deps.newId();
      await writer.run(`creating integration ${fields.name}`, integrationAggregate, id, {
        type: 'Create',
        data: { ...fields, id, status: 'enabled' },
      });
      writer.created('integration');
      if (!integrationIds.has(fields.integrationProvider)) integrationIds.set(fields.integrationProvider, id);
    });
    const integrationOf = (provider: string): string => {
      const id = integrationIds.get(provider);
      if (id === undefined) throw new SeedError(`no ${provider} integration was seeded`);
      return id;
    };
    const cloudIntegrations = Object.fromEntries(CLOUDS.map((c) => [c, integrationOf(c)])) as Record<Cloud, string>;

    const secrets = secretFixtures(prefix, { aws: cloudIntegrations.aws, gcp: cloudIntegrations.gcp });
    const secretIds = new Map<string, string>();
    await pool('secrets', secrets.length, async (i) => {
      const fields = secrets[i];
      if (!fields) return;
      const id = deps.newId();
      await writer.run(`creating secret ${fields.name}`, secretAggregate, id, {
        type: 'Create',
        data: { ...fields, id, status: 'enabled' },
      });
      writer.created('secret');
      secretIds.set(fields.secretProvider, id);
    });
    const secretFor = (cloud: Cloud): string => secretIds.get(cloud) ?? secretIds.get('custom') ?? '';

    const storages: Partial<Record<Cloud, string>> = {};
    await pool('storages', CLOUDS.length, async (i) => {
      const cloud = pick(CLOUDS, i);
      const fields = storageFixture(prefix, cloud, cloudIntegrations[cloud]);
      const id = deps.newId();
      await writer.run(`creating storage ${fields.name}`, storageAggregate, id, { type: 'Create', data: { ...fields, id, approvalFlow } });
      await provision(writer, `storage ${fields.name}`, storageAggregate, id, approvalFlow);
      writer.created('storage');
      storages[cloud] = id;
    });
    const storageOf = (cloud: Cloud): string => storages[cloud] ?? '';

    const git = { github: integrationOf('github'), gitlab: integrationOf('gitlab') };
    const sourceCodes: { id: string; integrationId: string | null }[] = [];
    await pool('source codes', SOURCE_CODES, async (i) => {
      const fields = sourceCodeFixture(prefix, i, git);
      const id = deps.newId();
      await writer.run(`creating source code ${fields.sourceCodeUrl}`, sourceCodeAggregate, id, {
        type: 'Create',
        data: { ...fields, id, status: 'enabled' },
      });
      writer.created('source_code');
      sourceCodes[i] = { id, integrationId: fields.integrationId };
    });
    const sourceCodeAt = (i: number): { id: string; integrationId: string | null } => pick(sourceCodes, i);

    const executorIds: string[] = [];
    await pool('executors', options.executors, async (e) => {
      const cloud = cloudOf(e);
      const sourceCode = sourceCodeAt(e);
      const fields = executorFixture(prefix, e, {
        sourceCodeId: sourceCode.id,
        storageId: storageOf(cloud),
        integrationIds: [cloudIntegrations[cloud], ...(sourceCode.integrationId === null ? [] : [sourceCode.integrationId])],
        secretIds: e % 3 === 0 ? [secretFor(cloud)] : [],
      });
      const id = deps.newId();
      await writer.run(`creating executor ${fields.name}`, executorAggregate, id, {
        type: 'Create',
        data: { ...fields, id, approvalFlow },
      });
      if (e % 6 !== 5) await provision(writer, `executor ${fields.name}`, executorAggregate, id, approvalFlow);
      writer.created('executor');
      executorIds[e] = id;
    });

    // Abstract templates first (the others name them as parents), then the rest with their versions.
    const abstractCount = options.templates >= 3 ? Math.max(1, Math.round(options.templates / 10)) : 0;
    const templates: SeededTemplate[] = [];
    const createTemplate = async (index: number, abstract: boolean, parentIds: string[], executors: string[]): Promise<SeededTemplate> => {
      const fields = templateFixture(prefix, index, abstract, { parentIds, executorIds: executors });
      const id = deps.newId();
      await writer.run(`creating template ${fields.name}`, templateAggregate, id, {
        type: 'Create',
        data: { ...fields, id, status: 'enabled' },
      });
      writer.created('template');
      return { id, slug: fields.template, cloud: cloudOf(index), abstract, versionIds: [] };
    };
    await pool('templates', abstractCount, async (i) => {
      templates[i] = await createTemplate(i, true, [], []);
    });
    const parents = templates.slice(0, abstractCount);
    await pool('templates', options.templates - abstractCount, async (j) => {
      const index = abstractCount + j;
      const parentIds = parents.length > 0 && j % 2 === 0 ? [pick(parents, j).id] : [];
      const executors = executorIds.length > 0 && j % 5 !== 4 ? [pick(executorIds, j)] : [];
      const template = await createTemplate(index, false, parentIds, executors);
      const sourceCodeId = sourceCodeAt(j).id;
      const tags = j % 3 === 0 ? (['v1.0.0', 'v1.1.0'] as const) : (['v1.0.0'] as const);
      const versionIds: string[] = [];
      for (const tag of tags) {
        const fields = versionFixture(template, sourceCodeId, tag, tag === 'v1.0.0' ? 'active' : 'preview');
        const id = deps.newId();
        await writer.run(`creating source code version ${fields.identifier}`, sourceCodeVersionAggregate, id, {
          type: 'Create',
          data: { ...fields, id, status: 'enabled' },
        });
        writer.created('source_code_version');
        versionIds.push(id);
      }
      templates[index] = { ...template, versionIds };
    });

    const positions = new Map<string, number>();
    const context: ResourceContext = {
      deps,
      writer,
      prefix,
      approvalFlow,
      creatorId: admin.id,
      templates,
      storages: { aws: storageOf('aws'), gcp: storageOf('gcp'), azurerm: storageOf('azurerm') },
      cloudIntegrations,
      secretFor,
      positions,
    };
    const units = planUnits(options.resources);
    phase = { name: 'resources', done: 0, total: options.resources, startedAt: Date.now() };
    let analyzeAt = hooks.analyzeFrom ?? FIRST_ANALYZE_AT;
    // One ANALYZE at a time, beside the writes (it does not block them); its failure only costs speed.
    let analyzing = Promise.resolve();
    await runPool(units.length, concurrency, async (u) => {
      const unit = units[u];
      if (!unit) return;
      await seedUnit(context, unit);
      phase.done += unit.size;
      if (phase.done < analyzeAt) return;
      analyzeAt *= 2;
      analyzing = analyzing
        .then(() => services.pool.query('ANALYZE'))
        .then(
          () => undefined,
          (error: unknown) => services.log.warn({ err: error }, 'seed: ANALYZE failed; the seed goes on'),
        );
    });
    await analyzing;
    phaseDone();

    const elapsedMs = Date.now() - started;
    return {
      prefix,
      counts: { ...writer.counts },
      positions,
      commands: writer.totals.commands,
      events: writer.totals.events,
      elapsedMs,
      commandsPerSecond: (writer.totals.commands * 1000) / Math.max(1, elapsedMs),
      head: await services.store.headPosition(),
    };
  } finally {
    clearInterval(timer);
  }
}
