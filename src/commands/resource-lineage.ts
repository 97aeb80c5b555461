import type { StreamWrite } from '../events/store/port.js';
import { loadAggregate, type CommandDeps, type PreparedCommand } from './handler.js';
import type { Lineage, RelativeFact } from './lineage.js';
import { loadReferrers, referenceStreamId } from './references.js';
import { resourceAggregate, type ResourceCommand } from './resource.js';

/** A resource as the lineage rules see it, with the revision its guard asserts. */
async function loadRelative(deps: CommandDeps, id: string): Promise<{ fact: RelativeFact; guard: StreamWrite } | undefined> {
  const { state, revision } = await loadAggregate(deps, resourceAggregate, id);
  if (state.status !== 'active' || revision === undefined) return undefined;
  return {
    fact: { id, name: state.fields.name, ...state.position },
    guard: { streamId: resourceAggregate.streamId(id), expectedRevision: revision, events: [] },
  };
}

/**
 * The write model's view of a resource's lineage: the parents it names and, for a destroy, the
 * resources that name it as a parent (from its reference stream, each confirmed from its own stream).
 * The guards assert every stream read is unchanged at append time, so a concurrent destroy, recreate
 * or new child makes the command decide again on fresh facts.
 */
export async function loadLineage(
  deps: CommandDeps,
  parentIds: readonly string[],
  childrenOf?: string,
): Promise<{ lineage: Lineage; guards: StreamWrite[] }> {
  const guards: StreamWrite[] = [];
  const parents: RelativeFact[] = [];
  for (const parentId of new Set(parentIds)) {
    const loaded = await loadRelative(deps, parentId);
    if (!loaded) continue; // a missing parent is the reference check's 422
    parents.push(loaded.fact);
    guards.push(loaded.guard);
  }
  const children: RelativeFact[] = [];
  if (childrenOf !== undefined) {
    const { referrers, revision } = await loadReferrers(deps.store, deps.codec, resourceAggregate.kind, childrenOf);
    guards.push({ streamId: referenceStreamId(resourceAggregate.kind, childrenOf), expectedRevision: revision ?? 'no_stream', events: [] });
    for (const child of referrers.filter((r) => r.kind === resourceAggregate.kind && r.field === 'parentIds')) {
      const { state, revision: childRevision } = await loadAggregate(deps, resourceAggregate, child.id);
      if (state.status !== 'active' || !state.fields.parentIds.includes(childrenOf) || childRevision === undefined) continue;
      children.push({ id: child.id, name: state.fields.name, ...state.position });
      guards.push({ streamId: resourceAggregate.streamId(child.id), expectedRevision: childRevision, events: [] });
    }
  }
  return { lineage: { parents, children }, guards };
}

/**
 * A resource command carrying its lineage, prepared on every attempt: a create checks the parents it
 * names; a recreate the parents it has; a destroy its children.
 */
export function withLineage(deps: CommandDeps, id: string, command: ResourceCommand): ResourceCommand | PreparedCommand<ResourceCommand> {
  if (command.type === 'Create') {
    return async () => {
      const { lineage, guards } = await loadLineage(deps, command.data.parentIds);
      return { command: { ...command, data: { ...command.data, lineage } }, guards };
    };
  }
  if (command.type === 'Act' && (command.data.action === 'recreate' || command.data.action === 'destroy')) {
    const { action } = command.data;
    return async () => {
      const { state } = await loadAggregate(deps, resourceAggregate, id);
      const parentIds = action === 'recreate' && state.status === 'active' ? state.fields.parentIds : [];
      const { lineage, guards } = await loadLineage(deps, parentIds, action === 'destroy' ? id : undefined);
      return { command: { ...command, data: { ...command.data, lineage } }, guards };
    };
  }
  return command;
}
