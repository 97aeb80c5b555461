import { loadAggregate } from '../../commands/handler.js';
import { ACTION_ACTORS } from '../../commands/lifecycle.js';
import { resourceAggregate } from '../../commands/resource.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { withLineage } from '../../commands/resource-lineage.js';
import { templateAggregate } from '../../commands/template.js';
import { AppError, notFound, type FieldIssue } from '../../errors.js';
import type { ResourceFields } from '../../events/resource.js';
import type { LifecycleAction } from '../../model/lifecycle.js';
import {
  allows,
  approverRight,
  entityLevel,
  kindLevel,
  levelIncludes,
  PRIVATE_WHEN_OWNED,
  type Permission,
  type PermissionResource,
} from '../../model/permissions.js';
import { relationTo } from '../../read/entity-access.js';
import { declarationOf } from '../../model/catalog.js';
import { callerLevel } from '../entity-authority.js';
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

/** The read table of a catalog kind a resource references. */
const tableOf = (kind: string): string => declarationOf(kind)?.table ?? kind;

/** The reference fields of a resource (`templateId`, `parentIds`, `secretIds`, …), from its declaration. */
const REFERENCE_FIELDS: readonly (readonly [keyof ResourceFields, { readonly target: string }])[] = Object.entries(
  resourceEntity.fields,
).flatMap(([name, field]) =>
  field.kind === 'id' || field.kind === 'idList' ? [[name as keyof ResourceFields, { target: field.target }] as const] : [],
);

/**
 * The writes of resources (docs/contract.md §2, §6). Unlike storages and executors, who may write
 * depends on the resource: its creator acts as owner on it even with only `resource:read` (role
 * `default`), and role `default` may request resources.
 */
export function resourceWrites(services: Services): WriteOperations {
  const deps = commandDeps(services);
  const target = {
    resource: 'resource',
    projection: resourceEntity.table,
    alsoShownBy: [RUNS_PROJECTION],
    owned: true,
    aggregate: resourceAggregate,
  } as const;

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
    throw new AppError('INVALID_VARIABLES', `invalid variables for source code version ${version.fields.identifier}: ${names.join(', ')}`, {
      errors,
    });
  }

  const table = { resource: 'resource', table: resourceEntity.table } as const;

  /**
   * Owners are the creator and everyone with `write` on the resource (holders of `resource:write`,
   * grantees, members of the owning team); the creator comes from the write model.
   */
  async function authorizeOwner(call: WriteCall, id: string, verb: string): Promise<Principal> {
    const principal = authorize(call.request, 'resource:read');
    if (allows(principal.permissions, 'resource:write')) return principal;
    const { state } = await loadAggregate(deps, resourceAggregate, id);
    if (state.status !== 'active') throw notFound('resource not found');
    if (state.fields.creatorId === principal.userId) return principal;
    if (levelIncludes((await callerLevel(services, principal, table, id)) ?? null, 'write')) return principal;
    throw new AppError('FORBIDDEN', `only the creator of a resource or holders of resource:write may ${verb} it`, {
      details: {
        missingPermission: 'resource:write',
        hint: 'members of the team that owns it, and holders of a write grant on it, may too',
      },
    });
  }

  /**
   * docs/contract.md §6, approvals by the owners: a request whose template a team owns is approved
   * by those with `admin` on the template (its team's leads, grantees, `template:admin`) or holders
   * of `resource:admin`; a template no team owns keeps the kind rule (`resource:write`). The right
   * used is kept in the event. Separation of duties: nobody approves a request they made, whatever
   * their role, unless the team owning the template allows it (`allowSelfApproval`), and then the
   * event says so.
   */
  async function authorizeApprover(call: WriteCall, id: string, action: LifecycleAction): Promise<{ authority: string }> {
    const principal = authorize(call.request, 'resource:read');
    const { state } = await loadAggregate(deps, resourceAggregate, id);
    // The command answers a request that does not exist (404) to those who may decide any.
    if (state.status !== 'active') {
      if (allows(principal.permissions, 'resource:admin')) return { authority: 'resource:admin' };
      throw notFound('resource not found');
    }
    const template = await relationTo(services.db, principal.userId, 'templates', state.fields.templateId);
    const authority = allows(principal.permissions, 'resource:admin')
      ? 'resource:admin'
      : template && approverRight(principal.permissions, template);
    if (authority === undefined) {
      if (template?.owned) {
        throw new AppError(
          'FORBIDDEN',
          `only a lead of the team that owns its template, or a holder of resource:admin, may ${action} this request`,
          { details: { missingPermission: 'resource:admin' } },
        );
      }
      throw new AppError('FORBIDDEN', 'missing permission resource:write', {
        details: { missingPermission: 'resource:write', hint: `approvers ${action} requests` },
      });
    }
    if (action !== 'approve' || state.fields.creatorId !== principal.userId) return { authority };
    const team = template?.ownerId ? await selfApprovingTeam(template.ownerId) : undefined;
    if (team === undefined) {
      const where = template?.ownerName ? `team ${template.ownerName} does not allow self-approval` : 'no team owns its template';
      throw new AppError('SELF_APPROVAL', `you requested this resource, so another approver must approve it (${where})`, {
        details: { hint: "a team's allowSelfApproval, set by holders of team:write, lets its approvers approve their own requests" },
      });
    }
    return { authority: `${authority}; own request, self-approval allowed by team ${team}` };
  }

  /** The name of the team `teamId` when it allows its approvers to approve their own requests. */
  async function selfApprovingTeam(teamId: string): Promise<string | undefined> {
    const row = await services.db
      .selectFrom('teams')
      .select('name')
      .where('id', '=', teamId)
      .where('allow_self_approval', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row?.name;
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
            issues.push({
              field: fieldOf(index),
              message: `resource ${id} is not yours: a parent must be a resource you may act on (yours, or any with resource:write)`,
            });
          }
        }
        continue;
      }
      const kind = declared.target as PermissionResource;
      const permission: Permission = `${kind}:read`;
      for (const { id, index } of added) {
        // The entity's own rule (an owned secret is its team's); one that does not exist is the reference check's 422.
        const relation =
          PRIVATE_WHEN_OWNED.has(kind) || !allows(principal.permissions, permission)
            ? await relationTo(services.db, principal.userId, tableOf(kind), id)
            : undefined;
        const level = relation === undefined ? kindLevel(principal.permissions, kind) : entityLevel(principal.permissions, kind, relation);
        if (!levelIncludes(level, 'read'))
          issues.push({ field: fieldOf(index), message: `missing permission ${permission}: only what you may read can be referenced` });
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
          throw new AppError('INVALID_REFERENCE', 'invalid references: templateId', { errors: [{ field: 'templateId', message }] });
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
        else if (ACTION_ACTORS[action] === 'approver') return authorizeApprover(call, id, action);
        else await authorizeAction(services, call, target, id, action);
        return undefined;
      },
      // Creating is parseCreate's check (resource:read), with or without an owning team; updating is for owners.
      unownedCreates: true,
      authorizeUpdate: async (call, id) => {
        await authorizeOwner(call, id, 'update');
      },
      // Parent/child rules need the lineage's streams: decided on every attempt (commands/lineage.ts).
      prepare: (id, command) => withLineage(deps, id, command),
    },
  );
}
