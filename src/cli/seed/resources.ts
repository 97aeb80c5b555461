import { unwritten, type CommandDeps } from '../../commands/handler.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import { resourceAggregate } from '../../commands/resource.js';
import type { ResourceFields } from '../../events/resource.js';
import { withLineage } from '../../commands/resource-lineage.js';
import { resourceLabels, resourceVariables, type Cloud } from './fixtures.js';
import type { SeedWriter } from './writer.js';

/** Where a seeded resource ends up in its lifecycle. */
export type ResourceOutcome =
  | 'provisioned'
  | 'rerun'
  | 'approval_pending'
  | 'rejected'
  | 'ready'
  | 'queued'
  | 'in_progress'
  | 'error'
  | 'destroyed'
  | 'destroy_pending';

/** Out of every hundred resources (percent): most are provisioned, the rest spread over the other positions. */
const MIX: readonly (readonly [ResourceOutcome, number])[] = [
  ['provisioned', 68],
  ['rerun', 4],
  ['approval_pending', 8],
  ['error', 5],
  ['ready', 3],
  ['queued', 2],
  ['in_progress', 2],
  ['rejected', 2],
  ['destroyed', 4],
  ['destroy_pending', 2],
];

/** The outcome of resource `index`: 37 is prime to 100, so every hundred consecutive indices hold the exact mix. */
export function outcomeOf(index: number): ResourceOutcome {
  let bucket = (index * 37 + 11) % 100;
  for (const [outcome, share] of MIX) {
    if (bucket < share) return outcome;
    bucket -= share;
  }
  return 'provisioned';
}

interface Step {
  readonly action: LifecycleAction;
  readonly outputs?: Record<string, unknown>;
  readonly error?: string;
}

/** The lifecycle actions that take a new resource to its outcome (without approval steps when the flow is off). */
export function stepsFor(outcome: ResourceOutcome, approvalFlow: boolean, outputs: Record<string, unknown>): Step[] {
  const run: Step[] = [{ action: 'execute' }, { action: 'start' }, { action: 'succeed', outputs }];
  const approved = (steps: Step[]): Step[] => (approvalFlow ? [{ action: 'approve' }, ...steps] : steps);
  const provisioned = approved(run);
  const steps: Record<ResourceOutcome, Step[]> = {
    provisioned,
    rerun: [...provisioned, ...run],
    approval_pending: [],
    rejected: approvalFlow ? [{ action: 'reject' }] : [],
    ready: approved([]),
    queued: approved([{ action: 'execute' }]),
    in_progress: approved([{ action: 'execute' }, { action: 'start' }]),
    error: approved([
      { action: 'execute' },
      { action: 'start' },
      { action: 'fail', error: 'Error: creating resource: AccessDenied: not authorized to perform this operation' },
    ]),
    destroyed: [
      ...provisioned,
      { action: 'destroy' },
      ...approved([{ action: 'execute' }, { action: 'start' }, { action: 'succeed', outputs: {} }]),
    ],
    destroy_pending: [...provisioned, { action: 'destroy' }],
  };
  return steps[outcome];
}

/** A template resources are created from, with the versions they may use. */
export interface SeededTemplate {
  readonly id: string;
  readonly slug: string;
  readonly cloud: Cloud;
  readonly abstract: boolean;
  /** Tagged versions, the active one first (none for abstract templates). */
  readonly versionIds: readonly string[];
}

/** What creating resources needs: the catalog seeded before them and the command path. */
export interface ResourceContext {
  readonly deps: CommandDeps;
  readonly writer: SeedWriter;
  readonly prefix: string;
  readonly approvalFlow: boolean;
  readonly creatorId: string;
  readonly templates: readonly SeededTemplate[];
  readonly storages: Readonly<Record<Cloud, string>>;
  readonly cloudIntegrations: Readonly<Record<Cloud, string>>;
  /** A secret usable on the cloud (its own provider's, or the custom one). */
  readonly secretFor: (cloud: Cloud) => string;
  /** Final `state/status` of every resource, counted. */
  readonly positions: Map<string, number>;
}

/** A unit of work of the pool: one resource, or a parent followed by children naming it. */
export interface ResourceUnit {
  readonly first: number;
  readonly size: number;
}

/** Every fiftieth resource starts a family of three (a parent and two children), as long as three fit. */
export function planUnits(total: number): ResourceUnit[] {
  const units: ResourceUnit[] = [];
  for (let i = 0; i < total;) {
    const size = i % 50 === 25 && total - i >= 3 ? 3 : 1;
    units.push({ first: i, size });
    i += size;
  }
  return units;
}

/** A stable, well-spread 32-bit hash of an index (so template popularity does not follow the index). */
const spread = (index: number): number => {
  let x = (index + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
};

/** One in twenty resources uses an abstract template (when there is one); the rest favour the first templates. */
function templateFor(templates: readonly SeededTemplate[], index: number): SeededTemplate {
  const abstract = templates.filter((t) => t.abstract);
  const concrete = templates.filter((t) => !t.abstract);
  const pool = abstract.length > 0 && (index % 20 === 7 || concrete.length === 0) ? abstract : concrete;
  const r = spread(index);
  return pool[Math.floor(r * r * pool.length)] ?? (pool[0] as SeededTemplate);
}

/** Creates resource `index` and walks it to its outcome; returns its id. */
export async function seedResource(
  ctx: ResourceContext,
  index: number,
  parentIds: readonly string[],
  outcome: ResourceOutcome,
): Promise<string> {
  const template = templateFor(ctx.templates, index);
  const id = ctx.deps.newId();
  const name = `${ctx.prefix}-res-${index}`;
  const fields: ResourceFields = {
    ownerId: null,
    name,
    abstract: template.abstract,
    variables: resourceVariables(index, template.cloud),
    storagePath: index % 3 === 0 ? null : `${template.slug}/${name}.tfstate`,
    templateId: template.id,
    sourceCodeVersionId:
      template.versionIds.length === 0 ? null : ((index % 5 === 0 ? template.versionIds.at(-1) : template.versionIds[0]) ?? null),
    storageId: ctx.storages[template.cloud],
    workspaceId: null,
    integrationIds: [ctx.cloudIntegrations[template.cloud]],
    secretIds: index % 10 === 0 ? [ctx.secretFor(template.cloud)] : [],
    parentIds: [...parentIds],
    creatorId: ctx.creatorId,
    description: index % 7 === 0 ? `Requested for ${name}` : '',
    labels: resourceLabels(index),
  };
  let result = await ctx.writer.run(
    `creating resource ${name}`,
    resourceAggregate,
    id,
    withLineage(ctx.deps, id, { type: 'Create', data: { ...fields, id, approvalFlow: ctx.approvalFlow } }),
    unwritten(resourceAggregate),
  );
  const outputs = { id: `${template.cloud}-${id.slice(0, 8)}`, endpoint: `https://${name}.${template.cloud}.example.internal` };
  for (const step of stepsFor(outcome, ctx.approvalFlow, outputs)) {
    const command = {
      type: 'Act' as const,
      data: { action: step.action, approvalFlow: ctx.approvalFlow, outputs: step.outputs, error: step.error },
    };
    result = await ctx.writer.run(`${step.action} on resource ${name}`, resourceAggregate, id, withLineage(ctx.deps, id, command), result);
  }
  ctx.writer.created('resource');
  const key = result.state.status === 'active' ? `${result.state.position.state}/${result.state.position.status}` : 'deleted';
  ctx.positions.set(key, (ctx.positions.get(key) ?? 0) + 1);
  return id;
}

/** Seeds one unit: the parent first (always provisioned, so its children may exist), then its children. */
export async function seedUnit(ctx: ResourceContext, unit: ResourceUnit): Promise<void> {
  if (unit.size === 1) {
    await seedResource(ctx, unit.first, [], outcomeOf(unit.first));
    return;
  }
  const parentId = await seedResource(ctx, unit.first, [], 'provisioned');
  for (let index = unit.first + 1; index < unit.first + unit.size; index++) await seedResource(ctx, index, [parentId], outcomeOf(index));
}
