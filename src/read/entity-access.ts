import { sql, type RawBuilder } from 'kysely';
import { declarationOf } from '../model/catalog.js';
import {
  ENTITY_RESOURCES,
  kindLevel,
  levelIncludes,
  PRIVATE_WHEN_OWNED,
  type EntityRelation,
  type PermissionLevel,
  type PermissionResource,
} from '../model/permissions.js';
import type { Principal, TeamMembership } from '../model/principal.js';
import type { Db } from '../storage/kysely.js';

/**
 * The read side of the per-entity rule (src/model/permissions.ts `entityLevel`): the same rule as
 * SQL, so lists and GraphQL statements filter rows in the database (one statement) rather than in
 * Node, and the writes' facts about one entity (its owner and grants) in one round trip.
 */

/**
 * The teams `userId` is in, with the role: listed leads and members, and members by a group their
 * last sign-in reported. Disabled or deleted teams give nothing.
 */
export function membershipOf(userId: string | RawBuilder<string>): RawBuilder<{ team_id: string; role: 'member' | 'lead' }> {
  return sql`(
    SELECT l.team_id, 'lead' AS role FROM team_leads l JOIN teams t ON t.id = l.team_id
      WHERE l.user_id = ${userId} AND t.deleted_at IS NULL AND t.status = 'enabled'
    UNION ALL
    SELECT m.team_id, 'member' AS role FROM team_members m JOIN teams t ON t.id = m.team_id
      WHERE m.user_id = ${userId} AND t.deleted_at IS NULL AND t.status = 'enabled'
    UNION ALL
    SELECT t.id AS team_id, 'member' AS role FROM teams t JOIN users u ON u.id = ${userId} WHERE t.group_references && u.external_groups
      AND t.deleted_at IS NULL AND t.status = 'enabled'
  )`;
}

/** `EXISTS` a grant on the row `alias.id` to the user or one of their teams, of at least `level`. */
function grantedSql(userId: string, alias: string, level: PermissionLevel): RawBuilder<boolean> {
  const levels = level === 'read' ? ['read', 'write', 'admin'] : level === 'write' ? ['write', 'admin'] : ['admin'];
  return sql<boolean>`EXISTS (SELECT 1 FROM entity_grants g
    WHERE g.entity_id = ${sql.ref(`${alias}.id`)} AND g.level IN (${sql.join(levels)})
    AND ((g.subject_type = 'user' AND g.subject_id = ${userId})
      OR (g.subject_type = 'team' AND g.subject_id IN (SELECT team_id FROM ${membershipOf(userId)} AS gm))))`;
}

/** What the read rule needs of a caller: who they are and what their roles and grants give. */
export type Reader = Pick<Principal, 'userId' | 'permissions'>;

/**
 * Which rows of `resource` (read as `alias`) the caller may read, or undefined when they may read
 * every row (the kind's read reaches them all). Private-when-owned kinds: the kind's read reaches
 * only rows no team owns; owners' members, grantees and holders of the kind's write see the rest.
 */
export function readableRows(principal: Reader, resource: PermissionResource, alias: string): RawBuilder<boolean> | undefined {
  const byKind = kindLevel(principal.permissions, resource);
  if (levelIncludes(byKind, 'write') || (byKind === 'read' && !PRIVATE_WHEN_OWNED.has(resource))) return undefined;
  const owner = sql.ref(`${alias}.owner_id`);
  const member = sql<boolean>`${owner} IN (SELECT team_id FROM ${membershipOf(principal.userId)} AS om)`;
  const granted = grantedSql(principal.userId, alias, 'read');
  return byKind === 'read' ? sql<boolean>`(${owner} IS NULL OR ${member} OR ${granted})` : sql<boolean>`(${member} OR ${granted})`;
}

/**
 * The teams of `userId` (an id, or a column of the statement it is part of) as one value, each
 * `team-id:role`, ordered by team: `teamsOf` reads it alone, the authentication's session lookup
 * with the session (src/auth/authenticator.ts), so a create's default owner costs no statement.
 */
export function teamsColumn(userId: string | RawBuilder<string>): RawBuilder<string[]> {
  return sql<string[]>`ARRAY(SELECT m.team_id::text || CASE WHEN bool_or(m.role = 'lead') THEN ':lead' ELSE ':member' END
    FROM ${membershipOf(userId)} AS m GROUP BY m.team_id ORDER BY m.team_id)`;
}

/** The memberships `teamsColumn` reads. */
export const teamsFrom = (column: readonly string[]): TeamMembership[] =>
  column.map((entry) => {
    const at = entry.lastIndexOf(':');
    return { teamId: entry.slice(0, at), role: entry.slice(at + 1) === 'lead' ? 'lead' : 'member' };
  });

/** The caller's teams and their role in each. */
export async function teamsOf(db: Db, userId: string): Promise<TeamMembership[]> {
  const { rows } = await sql<{ teams: string[] }>`SELECT ${teamsColumn(userId)} AS teams`.execute(db);
  return teamsFrom(rows[0]?.teams ?? []);
}

/** What ties a user to an entity, with its owner (null: no team owns it). */
export type OwnedRelation = EntityRelation & { readonly ownerId: string | null; readonly ownerName: string | null };

/** What ties the user to the live entity `id` of `table` (its owner and grants), or undefined when there is no such entity. */
export async function relationTo(
  db: Db,
  userId: string,
  table: string,
  id: string,
  ownerColumn: 'owner_id' | 'id' = 'owner_id',
): Promise<OwnedRelation | undefined> {
  const { rows } = await sql<{
    owner_id: string | null;
    owner_name: string | null;
    owner_role: 'member' | 'lead' | null;
    grant_levels: PermissionLevel[];
  }>`
    SELECT ${sql.ref(`e.${ownerColumn}`)} AS owner_id,
      (SELECT ot.name FROM teams ot WHERE ot.id = ${sql.ref(`e.${ownerColumn}`)}) AS owner_name,
      (SELECT CASE WHEN bool_or(m.role = 'lead') THEN 'lead' WHEN count(*) > 0 THEN 'member' END
         FROM ${membershipOf(userId)} AS m WHERE m.team_id = ${sql.ref(`e.${ownerColumn}`)}) AS owner_role,
      ARRAY(SELECT g.level FROM entity_grants g WHERE g.entity_id = e.id
        AND ((g.subject_type = 'user' AND g.subject_id = ${userId}) OR (g.subject_type = 'team' AND g.subject_id IN (SELECT team_id FROM
          ${membershipOf(userId)} AS gm)))) AS grant_levels
    FROM ${sql.table(table)} e WHERE e.id = ${id} AND e.deleted_at IS NULL`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    ownerId: row.owner_id,
    ownerName: row.owner_name,
    owned: row.owner_id !== null,
    ownerRole: row.owner_role,
    grantLevels: row.grant_levels,
  };
}

/**
 * The resource requests (rows of `resources` read as `alias`) waiting for the caller's decision, by
 * the approvers' rule (src/edge/writes/resources.ts): holders of `resource:admin` decide every one;
 * a request whose template a team owns waits for those with `admin` on the template (its team's
 * leads, admin grantees, `template:admin`); one whose template no team owns for `resource:write`.
 */
export function awaitingDecisionOf(principal: Principal, alias: string): RawBuilder<boolean> {
  const pending = sql<boolean>`${sql.ref(`${alias}.status`)} = 'approval_pending'`;
  if (levelIncludes(kindLevel(principal.permissions, 'resource'), 'admin')) return pending;
  const templateId = sql.ref(`${alias}.template_id`);
  const owner = sql`(SELECT tpl.owner_id FROM templates tpl WHERE tpl.id = ${templateId})`;
  const ways: RawBuilder<boolean>[] = [
    sql<boolean>`${owner} IN (SELECT team_id FROM ${membershipOf(principal.userId)} AS am WHERE am.role = 'lead')`,
    sql<boolean>`EXISTS (SELECT 1 FROM entity_grants g WHERE g.entity_id = ${templateId} AND g.level = 'admin'
      AND ((g.subject_type = 'user' AND g.subject_id = ${principal.userId})
        OR (g.subject_type = 'team' AND g.subject_id IN (SELECT team_id FROM ${membershipOf(principal.userId)} AS ag))))`,
  ];
  if (levelIncludes(kindLevel(principal.permissions, 'template'), 'admin')) ways.push(sql<boolean>`${owner} IS NOT NULL`);
  if (levelIncludes(kindLevel(principal.permissions, 'resource'), 'write')) ways.push(sql<boolean>`${owner} IS NULL`);
  return sql<boolean>`(${pending} AND (${sql.join(ways, sql` OR `)}))`;
}

/**
 * The kinds whose entries, changes and deliveries a reader may see: the catalog's and teams. Every
 * path that shows an entity or its history outside the entity's own routes (the audit log, live
 * changes, webhooks, notifications) asks `mayReadEntity` or `readableEntries`, both derived from
 * `readableRows`, so none can forget the per-entity rule (docs/contract.md §7).
 */
export const READABLE_KINDS: readonly PermissionResource[] = [...ENTITY_RESOURCES, 'team'];

/** The read table of a readable kind (teams own themselves: their row is their owner's). */
const tableOfKind = (kind: PermissionResource): string | undefined => declarationOf(kind)?.table;

/**
 * Whether the caller may read the entity `id` of `kind` as its row last stood: a deleted one by who
 * could read it when it existed (its row keeps its owner). Needs the kind's read, like every read
 * route; an entity the read side does not know is unreadable (wait for the read side first).
 */
export async function mayReadEntity(db: Db, principal: Reader, kind: string, id: string): Promise<boolean> {
  if (!(READABLE_KINDS as readonly string[]).includes(kind)) return false;
  const resource = kind as PermissionResource;
  if (!levelIncludes(kindLevel(principal.permissions, resource), 'read')) return false;
  const rule = readableRows(principal, resource, 'e');
  const table = tableOfKind(resource);
  if (rule === undefined || table === undefined) return true;
  const { rows } = await sql<{
    readable: boolean;
  }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(table)} e WHERE e.id = ${id} AND ${rule}) AS readable`.execute(db);
  return rows[0]?.readable === true;
}

/**
 * The same rule over the rows of `audit_log`: the entries of the kinds the caller reads, and of a
 * private-when-owned kind only those whose entity (deleted or not) the caller may read. Undefined
 * when every entry is readable (`audit_log:read`).
 */
export function readableEntries(principal: Reader): RawBuilder<boolean> | undefined {
  if (levelIncludes(kindLevel(principal.permissions, 'audit_log'), 'read')) return undefined;
  const kinds = READABLE_KINDS.filter((kind) => levelIncludes(kindLevel(principal.permissions, kind), 'read'));
  const entityType = sql.ref('audit_log.entity_type');
  const open = kinds.filter((kind) => readableRows(principal, kind, 'e') === undefined);
  const ways: RawBuilder<boolean>[] = open.length > 0 ? [sql<boolean>`${entityType} IN (${sql.join(open)})`] : [];
  for (const kind of kinds) {
    const rule = open.includes(kind) ? undefined : readableRows(principal, kind, 'e');
    const table = tableOfKind(kind);
    if (rule === undefined || table === undefined) continue;
    // CASE keeps the cast to the kind's own entries (other entries' ids need not be uuids) and lets the row be found by its key.
    ways.push(sql<boolean>`(${entityType} = ${kind} AND EXISTS (SELECT 1 FROM ${sql.table(table)} e
      WHERE e.id = CASE WHEN ${entityType} = ${kind} THEN ${sql.ref('audit_log.entity_id')}::uuid END AND ${rule}))`);
  }
  return ways.length === 0 ? sql<boolean>`false` : sql<boolean>`(${sql.join(ways, sql` OR `)})`;
}
