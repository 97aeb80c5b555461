import { loadAggregate } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import { resourceAggregate } from '../../commands/resource.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { withLineage } from '../../commands/resource-lineage.js';
import { templateAggregate } from '../../commands/template.js';
import { AppError, notFound } from '../../errors.js';
import type { ResourceFields } from '../../events/resource.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import { allows } from '../../model/permissions.js';
import type { Principal } from '../../model/principal.js';
import { resourceEntity, type ResourceVariable } from '../../model/resource.js';
import { checkVariables } from '../../model/variable-values.js';
import type { Services } from '../../services.js';
import { authorize } from '../authorize.js';
import { entityInput } from '../entity-input.js';
import { authorizeAction, lifecycleWrites } from './catalog.js';
import { RUNS_PROJECTION } from './run-logs.js';
import { commandDeps, type WriteCall, type WriteOperations } from './write.js';

const input = entityInput(resourceEntity);

/**
 * The writes of resources (docs/contract.md §2, §6). Unlike storages and executors, who may write
 * depends on the resource: its creator acts as owner on it even with only `resource:read` (role
 * `default`), and role `default` may request resources.
 */
export function resourceWrites(services: Services): WriteOperations {
  const deps = commandDeps(services);
  const target = { resource: 'resource', projection: resourceEntity.table, alsoShownBy: [RUNS_PROJECTION], aggregate: resourceAggregate } as const;

  /**
   * A resource's variables against its version's declarations (docs/contract.md §2, typed
   * variables): 422 naming each variable and why. Without a version (abstract templates) nothing
   * declares them; a version that does not exist is the reference check's 422.
   */
  async function checkDeclaredVariables(versionId: string | null, variables: readonly ResourceVariable[]): Promise<void> {
    if (versionId === null) return;
    const version = (await loadAggregate(deps, sourceCodeVersionAggregate, versionId)).state;
    if (version.status !== 'active') return;
    const errors = checkVariables(version.fields.variables, variables, version.fields.identifier);
    if (errors.length === 0) return;
    const names = [...new Set(errors.map((e) => e.field.slice('variables.'.length)))];
    throw new AppError('UNPROCESSABLE', `invalid variables for source code version ${version.fields.identifier}: ${names.join(', ')}`, { errors });
  }

  /** Owners are the creator and every holder of `resource:write`; the creator comes from the write model. */
  async function authorizeOwner(call: WriteCall, id: string, verb: string): Promise<Principal> {
    const principal = authorize(call.request, 'resource:read');
    if (allows(principal.permissions, 'resource:write')) return principal;
    const { state } = await loadAggregate(deps, resourceAggregate, id);
    if (state.status !== 'active') throw notFound('resource not found');
    if (state.fields.creatorId === principal.userId) return principal;
    throw new AppError('FORBIDDEN', `only the creator of a resource or holders of resource:write may ${verb} it`, {
      details: { missingPermission: 'resource:write' },
    });
  }

  return lifecycleWrites<ResourceFields>(
    services,
    target,
    {
      async parseCreate(body, call) {
        // docs/contract.md §6: role default (resource:read) may request resources; it then owns them.
        const principal = authorize(call.request, 'resource:read');
        // A masked "********" value can stand for nothing yet: refused (400) with the body's other faults.
        const parsed = input.parseCreate(body);
        const template = (await loadAggregate(deps, templateAggregate, parsed.templateId)).state;
        if (template.status !== 'active') {
          const message = `template ${parsed.templateId} does not exist`;
          throw new AppError('UNPROCESSABLE', 'invalid references: templateId', { errors: [{ field: 'templateId', message }] });
        }
        await checkDeclaredVariables(parsed.sourceCodeVersionId, parsed.variables);
        return { ...parsed, abstract: template.fields.abstract, creatorId: principal.userId };
      },
      async parsePatch(body, current) {
        const changes = input.parsePatch(body, current);
        // Only a change of the variables or the version is judged: older resources stay editable.
        if (changes.variables !== undefined || changes.sourceCodeVersionId !== undefined) {
          const versionId = changes.sourceCodeVersionId !== undefined ? changes.sourceCodeVersionId : current.sourceCodeVersionId;
          await checkDeclaredVariables(versionId, changes.variables ?? current.variables);
        }
        return changes;
      },
    },
    {
      // Owners act on their own resources; approvers and runners as on every lifecycle entity.
      authorize: async (call, id, action: LifecycleAction) => {
        if (ACTION_ACTORS[action] === 'owner') await authorizeOwner(call, id, action);
        else authorizeAction(call, 'resource', action);
      },
      // Creating is parseCreate's check (resource:read); updating is for owners.
      authorizeWrite: async (call, id) => {
        if (id !== undefined) await authorizeOwner(call, id, 'update');
      },
      // Parent/child rules need the lineage's streams: decided on every attempt (commands/lineage.ts).
      prepare: (id, command) => withLineage(deps, id, command),
    },
  );
}
