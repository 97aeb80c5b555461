import { sql } from 'kysely';
import { ACTION_ACTORS, allowedActions } from '../commands/lifecycle.js';
import { notFound } from '../errors.js';
import { declarationOf } from '../model/catalog.js';
import type { EntityDeclaration } from '../model/entity.js';
import type { LifecycleAction, LifecyclePosition } from '../model/lifecycle.js';
import {
  allows,
  approverRight,
  entityLevel,
  LEVELS,
  levelIncludes,
  type PermissionLevel,
  type PermissionResource,
} from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { membershipOf, type OwnedRelation } from '../read/entity-access.js';
import type { Services } from '../services.js';
import type { Db } from '../storage/kysely.js';

/** What computing access needs: the read side, and whether requests wait for approval (APPROVAL_FLOW). */
export interface AccessDeps {
  readonly db: Db;
  readonly approvalFlow: boolean;
}

/** One grant on an entity, as the permissions view shows it. */
export interface GrantView {
  readonly subjectType: 'user' | 'team';
  readonly subjectId: string;
  /** The team's name or the user's display name (else identifier). */
  readonly subjectName: string | null;
  readonly level: PermissionLevel;
  readonly grantedAt: string;
}

/** What the caller may do with one entity (docs/contract.md §6, "What may I do here"). */
export interface EntityAccess {
  readonly entityType: string;
  readonly entityId: string;
  /** The levels the caller holds on it, weakest first (`read`, `write`, `admin`); empty: none. */
  readonly myPermissions: PermissionLevel[];
  /** The actions that would be accepted now: `update`, `delete`, `enable`/`disable`, lifecycle actions, `changeOwner`, `grant`. */
  readonly availableActions: string[];
  readonly owner: { readonly id: string; readonly name: string | null } | null;
  /** The caller's role in the owning team (for a team: in it), if any. */
  readonly myTeamRole: 'member' | 'lead' | null;
}

/** The permissions view REST answers: the access and the entity's grants. */
export interface EntityPermissionsView extends EntityAccess {
  readonly grants: GrantView[];
}

interface AccessRow {
  readonly id: string;
  readonly status: string;
  readonly state: string | null;
  readonly creator_id: string | null;
  readonly owner_id: string | null;
  readonly owner_name: string | null;
  readonly owner_role: 'member' | 'lead' | null;
  readonly grant_levels: PermissionLevel[];
  readonly template_owner_id: string | null;
  readonly template_owner_name: string | null;
  readonly template_owner_role: 'member' | 'lead' | null;
  readonly template_grant_levels: PermissionLevel[] | null;
}

/**
 * The owner, the caller's role in the owning team and the caller's grants of the entity `alias`
 * (and of a resource's template), for the `mine` CTE of the caller's teams: one statement for any
 * number of entities of a kind.
 */
function relationColumns(alias: string, ownerColumn: string, userId: string, prefix: string) {
  const owner = sql.ref(`${alias}.${ownerColumn}`);
  return [
    sql`${owner}`.as(`${prefix}owner_id`),
    sql`(SELECT ot.name FROM teams ot WHERE ot.id = ${owner})`.as(`${prefix}owner_name`),
    sql`(SELECT CASE WHEN bool_or(m.role = 'lead') THEN 'lead' WHEN count(*) > 0 THEN 'member' END
      FROM mine m WHERE m.team_id = ${owner})`.as(`${prefix}owner_role`),
    sql`ARRAY(SELECT g.level FROM entity_grants g WHERE g.entity_id = ${sql.ref(`${alias}.id`)}
      AND ((g.subject_type = 'user' AND g.subject_id = ${userId})
        OR (g.subject_type = 'team' AND g.subject_id IN (SELECT team_id FROM mine))))`.as(`${prefix}grant_levels`),
  ];
}

/** The rows behind the access of `ids` (live entities only), in one statement. */
async function accessRows(
  services: AccessDeps,
  principal: Principal,
  entity: EntityDeclaration,
  ids: readonly string[],
): Promise<AccessRow[]> {
  const ownerColumn = entity.kind === 'team' ? 'id' : 'owner_id';
  const selections = [
    sql.ref('e.id').as('id'),
    sql.ref('e.status').as('status'),
    (entity.lifecycle ? sql.ref('e.state') : sql`NULL::text`).as('state'),
    sql.ref('e.creator_id').as('creator_id'),
    ...relationColumns('e', ownerColumn, principal.userId, ''),
    ...(entity.kind === 'resource'
      ? relationColumns('tpl', 'owner_id', principal.userId, 'template_')
      : ['owner_id', 'owner_name', 'owner_role', 'grant_levels'].map((c) => sql`NULL`.as(`template_${c}`))),
  ];
  const template = entity.kind === 'resource' ? sql`LEFT JOIN templates tpl ON tpl.id = e.template_id` : sql``;
  const { rows } = await sql<AccessRow>`WITH mine AS ${membershipOf(principal.userId)}
    SELECT ${sql.join(selections)} FROM ${sql.table(entity.table)} e ${template}
    WHERE e.id = ANY(${[...ids]}::uuid[]) AND e.deleted_at IS NULL`.execute(services.db);
  return rows;
}

const relation = (
  owner: string | null,
  name: string | null,
  role: 'member' | 'lead' | null,
  grants: readonly PermissionLevel[] | null,
): OwnedRelation => ({
  ownerId: owner,
  ownerName: name,
  owned: owner !== null,
  ownerRole: role,
  grantLevels: grants ?? [],
});

/** The actions the caller may take on the entity a row describes. */
function actionsOf(
  services: AccessDeps,
  principal: Principal,
  entity: EntityDeclaration,
  row: AccessRow,
  level: PermissionLevel | null,
): string[] {
  const resource = entity.kind as PermissionResource;
  // A resource's creator acts as its owner (write), as the writes decide.
  const mayWrite = levelIncludes(level, 'write') || (entity.kind === 'resource' && row.creator_id === principal.userId);
  const actions: string[] = mayWrite ? ['update'] : [];
  if (entity.lifecycle) {
    const template = relation(row.template_owner_id, row.template_owner_name, row.template_owner_role, row.template_grant_levels);
    const approver = entity.kind === 'resource' && approverRight(principal.permissions, template) !== undefined;
    const runner =
      (principal.kind === 'service_account' && allows(principal.permissions, `${resource}:write`)) ||
      allows(principal.permissions, `${resource}:admin`);
    const position = { state: row.state, status: row.status } as LifecyclePosition;
    const rules = { approvals: entity.lifecycle.approvals, approvalFlow: services.approvalFlow };
    actions.push(
      ...allowedActions(position, rules).filter((action: LifecycleAction) => {
        const actor = ACTION_ACTORS[action];
        return actor === 'owner' ? mayWrite : actor === 'approver' ? approver : runner;
      }),
    );
  } else if (mayWrite) {
    actions.push(row.status === 'enabled' ? 'disable' : 'enable', 'delete');
  }
  if (levelIncludes(level, 'admin')) actions.push(...(entity.kind === 'team' ? [] : ['changeOwner']), 'grant');
  return actions;
}

/**
 * The caller's access to each of `ids` of `kind` that exists and that they may read (one
 * statement): their levels, the actions that would work now, the owner.
 */
export async function accessOf(
  services: AccessDeps,
  principal: Principal,
  kind: string,
  ids: readonly string[],
): Promise<Map<string, EntityAccess>> {
  const entity = declarationOf(kind);
  const found = new Map<string, EntityAccess>();
  if (!entity || ids.length === 0) return found;
  for (const row of await accessRows(services, principal, entity, ids)) {
    const level = entityLevel(
      principal.permissions,
      kind as PermissionResource,
      relation(row.owner_id, row.owner_name, row.owner_role, row.grant_levels),
    );
    if (!levelIncludes(level, 'read')) continue;
    found.set(row.id, {
      entityType: kind,
      entityId: row.id,
      myPermissions: LEVELS.filter((l) => levelIncludes(level, l)),
      availableActions: actionsOf(services, principal, entity, row, level),
      owner: kind === 'team' || row.owner_id === null ? null : { id: row.owner_id, name: row.owner_name },
      myTeamRole: row.owner_role,
    });
  }
  return found;
}

/** The permissions view of one entity (REST `GET …/{id}/permissions`); 404 when absent or not readable. */
export async function entityPermissions(
  services: Services,
  principal: Principal,
  kind: string,
  id: string,
): Promise<EntityPermissionsView> {
  const access = (await accessOf({ db: services.db, approvalFlow: services.config.APPROVAL_FLOW }, principal, kind, [id])).get(id);
  if (!access) throw notFound(`${kind.replaceAll('_', ' ')} not found`);
  return { ...access, grants: await grantsOn(services, id) };
}

/** The grants on an entity, with their subjects' names. */
export async function grantsOn(services: Services, id: string): Promise<GrantView[]> {
  const { rows } = await sql<{
    subject_type: 'user' | 'team';
    subject_id: string;
    subject_name: string | null;
    level: PermissionLevel;
    granted_at: Date | string;
  }>`
    SELECT g.subject_type, g.subject_id, g.level, g.granted_at,
      CASE WHEN g.subject_type = 'team' THEN (SELECT t.name FROM teams t WHERE t.id = g.subject_id)
           ELSE (SELECT coalesce(u.display_name, u.identifier) FROM users u WHERE u.id = g.subject_id) END AS subject_name
    FROM entity_grants g WHERE g.entity_id = ${id} ORDER BY g.subject_type, g.subject_id`.execute(services.db);
  return rows.map((r) => ({
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    subjectName: r.subject_name,
    level: r.level,
    grantedAt: new Date(r.granted_at).toISOString(),
  }));
}
