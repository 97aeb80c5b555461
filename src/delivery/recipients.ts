import { effectivePermissions, allows, ROLES, type Permission } from '../model/permissions.js';
import { resourceEntity } from '../model/resource.js';
import { teamEntity } from '../model/team.js';
import { templateEntity } from '../model/template.js';
import { usersProjection } from '../projections/users.js';
import { mayReadEntity } from '../read/entity-access.js';
import type { Db } from '../storage/kysely.js';
import type { SqlPool } from '../storage/pool.js';
import type { Notice } from './notice.js';

/**
 * Who hears a notice (docs/contract.md §11), read from the read side once it has applied the event:
 * - a request waits → the leads of the team that owns its template (none left: holders of
 *   `resource:admin`); a template no team owns → holders of `resource:write`, as approvals go;
 * - approved / rejected → the requester (the resource's creator);
 * - a run failed → the members and leads of the team that owns the resource, else its creator.
 * Only people (not service accounts), active, who may read the resource, and at most MAX_RECIPIENTS of them.
 */

/** Someone to tell: chat clients find them by e-mail. */
export interface Person {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
}

/** A notice with everything its message says. */
export interface NoticeContext {
  readonly resource: { readonly id: string; readonly name: string; readonly templateName: string | null };
  readonly requester: Person | null;
  /** Who decided (approved, rejected), when a person did. */
  readonly actor: Person | null;
  readonly recipients: readonly Person[];
  /** Who the recipients are, in words: `the leads of team payments`, `holders of resource:write`. */
  readonly audience: string;
}

/** A notice for more people than this goes to the first of them by identifier (and the log says so). */
export const MAX_RECIPIENTS = 50;

/** The projections whose tables the recipients are read from. */
const SOURCES = [resourceEntity.table, templateEntity.table, teamEntity.table, usersProjection.name];

/** Whether every table recipients are read from has applied the log up to `position` (else: ask again later). */
export async function readSideReached(pool: SqlPool, position: bigint): Promise<boolean> {
  const { rows } = await pool.query<{ reached: boolean | null }>(
    'SELECT bool_and(position >= $1) AND count(*) = $3 AS reached FROM projection_checkpoints WHERE name = ANY($2::text[])',
    [String(position), SOURCES, SOURCES.length],
  );
  return rows[0]?.reached === true;
}

/** The roles whose grants hold the permission (a role-level check; extra grants are matched apart). */
const rolesHolding = (wanted: Permission): string[] => ROLES.filter((role) => allows(effectivePermissions([role], []), wanted));
/** The grants that hold the permission: itself and every stronger level. */
const grantsHolding = (wanted: Permission): string[] =>
  wanted.endsWith(':read')
    ? [wanted, wanted.replace(':read', ':write'), wanted.replace(':read', ':admin')]
    : wanted.endsWith(':write')
      ? [wanted, wanted.replace(':write', ':admin')]
      : [wanted];

const PERSON = `u.id::text AS id, coalesce(nullif(u.display_name, ''), u.identifier) AS name, u.email`;
const ACTIVE_PEOPLE = `u.kind = 'human' AND NOT u.deactivated`;

/** A person with what their roles and grants give, to hold them to the read rule. */
interface Candidate extends Person {
  readonly roles: readonly string[];
  readonly grants: readonly string[];
}

async function people(pool: SqlPool, where: string, params: readonly unknown[]): Promise<Candidate[]> {
  const { rows } = await pool.query<Candidate>(
    `SELECT ${PERSON}, u.roles, u.grants FROM users u WHERE ${ACTIVE_PEOPLE} AND (${where})
      ORDER BY lower(u.identifier) LIMIT ${MAX_RECIPIENTS}`,
    params,
  );
  return rows;
}

/**
 * The candidates who may read the resource (the per-entity rule every path that shows an entity
 * keeps: src/read/entity-access.ts): nobody hears of what they could not look at.
 */
async function readers(db: Db, candidates: readonly Candidate[], resourceId: string): Promise<Person[]> {
  const kept: Person[] = [];
  for (const { roles, grants, ...person } of candidates) {
    const reader = { userId: person.id, permissions: effectivePermissions(roles, grants) };
    if (await mayReadEntity(db, reader, 'resource', resourceId)) kept.push(person);
  }
  return kept;
}

const holders = (pool: SqlPool, wanted: Permission): Promise<Candidate[]> =>
  people(pool, 'u.roles && $1::text[] OR u.grants && $2::text[]', [rolesHolding(wanted), grantsHolding(wanted)]);

const ENABLED_TEAM = `SELECT 1 FROM teams t WHERE t.id = $1 AND t.deleted_at IS NULL AND t.status = 'enabled'`;

const leadsOf = (pool: SqlPool, teamId: string): Promise<Candidate[]> =>
  people(pool, `EXISTS (${ENABLED_TEAM}) AND u.id IN (SELECT user_id FROM team_leads WHERE team_id = $1)`, [teamId]);

const membersOf = (pool: SqlPool, teamId: string): Promise<Candidate[]> =>
  people(
    pool,
    `EXISTS (${ENABLED_TEAM}) AND (u.id IN (SELECT user_id FROM team_leads WHERE team_id = $1)
      OR u.id IN (SELECT user_id FROM team_members WHERE team_id = $1)
      OR u.external_groups && (SELECT group_references FROM teams WHERE id = $1))`,
    [teamId],
  );

async function person(pool: SqlPool, id: string | null): Promise<Candidate | null> {
  if (id === null) return null;
  const { rows } = await pool.query<Candidate>(`SELECT ${PERSON}, u.roles, u.grants FROM users u WHERE u.id = $1`, [id]);
  return rows[0] ?? null;
}

/** The person without what only the read rule needed. */
const asPerson = (candidate: Candidate | null): Person | null =>
  candidate && { id: candidate.id, name: candidate.name, email: candidate.email };

interface ResourceRow {
  readonly name: string;
  readonly creator_id: string | null;
  readonly owner_id: string | null;
  readonly owner_name: string | null;
  readonly template_name: string | null;
  readonly template_owner_id: string | null;
  readonly template_owner_name: string | null;
}

/** Who hears the notice and what its message names; undefined when the resource is gone. */
export async function contextOf(pool: SqlPool, db: Db, notice: Notice, actorId: string | null): Promise<NoticeContext | undefined> {
  const { rows } = await pool.query<ResourceRow>(
    `SELECT r.name, r.creator_id::text AS creator_id, r.owner_id::text AS owner_id, o.name AS owner_name,
            t.name AS template_name, t.owner_id::text AS template_owner_id, tt.name AS template_owner_name
       FROM resources r LEFT JOIN teams o ON o.id = r.owner_id
       LEFT JOIN templates t ON t.id = r.template_id LEFT JOIN teams tt ON tt.id = t.owner_id
      WHERE r.id = $1`,
    [notice.resourceId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const requesting = await person(pool, row.creator_id);
  const requester = asPerson(requesting);
  const actor = notice.rule === 'approved' || notice.rule === 'rejected' ? asPerson(await person(pool, actorId)) : null;
  const resource = { id: notice.resourceId, name: row.name, templateName: row.template_name };
  const context = async (candidates: readonly Candidate[], audience: string): Promise<NoticeContext> => ({
    resource,
    requester,
    actor,
    recipients: await readers(db, candidates, notice.resourceId),
    audience,
  });
  switch (notice.rule) {
    case 'approval_requested': {
      if (row.template_owner_id === null) return context(await holders(pool, 'resource:write'), 'holders of resource:write');
      const leads = await leadsOf(pool, row.template_owner_id);
      if (leads.length > 0) return context(leads, `the leads of team ${row.template_owner_name ?? row.template_owner_id}`);
      return context(await holders(pool, 'resource:admin'), 'holders of resource:admin (the owning team has no leads)');
    }
    case 'approved':
    case 'rejected':
      return context(requesting ? [requesting] : [], 'the requester');
    case 'run_failed': {
      if (row.owner_id !== null) {
        const members = await membersOf(pool, row.owner_id);
        if (members.length > 0) return context(members, `team ${row.owner_name ?? row.owner_id}`);
      }
      return context(requesting ? [requesting] : [], 'the requester');
    }
  }
}
