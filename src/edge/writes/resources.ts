import { loadAggregate } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import { resourceAggregate } from '../../commands/resource.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { withLineage } from '../../commands/resource-lineage.js';
import { templateAggregate } from '../../commands/template.js';
import { AppError, notFound, type FieldIssue } from '../../errors.js';
import type { ResourceFields } from '../../events/resource.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import { allows, type Permission, type PermissionResource } from '../../model/permissions.js';
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

/** The reference fields of a resource (`templateId`, `parentIds`, `secretIds`, …), from its declaration. */
const REFERENCE_FIELDS: readonly (readonly [keyof ResourceFields, { readonly target: string }])[] = Object.entries(resourceEntity.fields).flatMap(([name, field]) =>
  field.kind === 'id' || field.kind === 'idList' ? [[name as keyof ResourceFields, { target: field.target }] as const] : [],
);

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

  /**
   * docs/contract.md §2 (references on a request): naming a resource as parent needs the right to act
   * on it (its creator, or `resource:write`); naming any other entity needs the right to read its kind
   * (`secret:read` for `secretIds`, …). Only what the write adds is checked: references a privileged
   * caller set earlier may stay. Refused with 403 naming each field; references to nothing are left
   * to the reference check's 422.
   */
  async function authorizeReferences(principal: Principal, fields: Partial<ResourceFields>, current?: ResourceFields): Promise<void> {
    const issues: FieldIssue[] = [];
    for (const [name, declared] of REFERENCE_FIELDS) {
      const value: unknown = fields[name];
      if (value === undefined || value === null) continue;
      const before: readonly unknown[] = current === undefined ? [] : [current[name]].flat();
      // Ids are strings here: the input schema has parsed them (as UUIDs).
      const ids = (Array.isArray(value) ? value : [value]) as readonly string[];
      const added = ids.map((id, index) => ({ id, index })).filter(({ id }) => !before.includes(id));
      if (added.length === 0) continue;
      const fieldOf = (index: number): string => (Array.isArray(value) ? `${name}[${index}]` : name);
      if (declared.target === 'resource') {
        if (allows(principal.permissions, 'resource:write')) continue;
        for (const { id, index } of added) {
          const { state } = await loadAggregate(deps, resourceAggregate, id);
          if (state.status === 'active' && state.fields.creatorId !== principal.userId) {
            issues.push({ field: fieldOf(index), message: `resource ${id} is not yours: a parent must be a resource you may act on (yours, or any with resource:write)` });
          }
        }
        continue;
      }
      const permission: Permission = `${declared.target as PermissionResource}:read`;
      if (!allows(principal.permissions, permission)) {
        for (const { index } of added) issues.push({ field: fieldOf(index), message: `missing permission ${permission}: only what you may read can be referenced` });
      }
    }
    if (issues.length > 0) {
      throw new AppError('FORBIDDEN', `may not reference: ${issues.map((issue) => issue.field).join(', ')}`, { errors: issues });
    }
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
        await authorizeReferences(principal, parsed);
        const template = (await loadAggregate(deps, templateAggregate, parsed.templateId)).state;
        if (template.status !== 'active') {
          const message = `template ${parsed.templateId} does not exist`;
          throw new AppError('UNPROCESSABLE', 'invalid references: templateId', { errors: [{ field: 'templateId', message }] });
        }
        await checkDeclaredVariables(parsed.sourceCodeVersionId, parsed.variables);
        return { ...parsed, abstract: template.fields.abstract, creatorId: principal.userId };
      },
      async parsePatch(body, current, call) {
        const changes = input.parsePatch(body, current);
        await authorizeReferences(authorize(call.request, 'resource:read'), changes, current);
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
