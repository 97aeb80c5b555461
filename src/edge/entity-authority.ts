import { AppError, notFound } from '../errors.js';
import { entityLevel, kindLevel, levelIncludes, type PermissionLevel, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { relationTo, teamsOf } from '../read/entity-access.js';
import type { Services } from '../services.js';
import { authorize } from './authorize.js';
import type { WriteCall } from './writes/write.js';

/**
 * The per-entity rule at the edge (docs/contract.md §6): a write needs `write` on the entity and a
 * change of owner `admin`, where the level is the kind's permission, the entity's grants or the
 * owning team's membership (src/model/permissions.ts). The kind's permission answers without a
 * query; otherwise the owner and grants are read from the read side, which a write's answer has
 * already reached (read-your-writes), so a grant works from the moment it is answered.
 */

/** Where an entity's owner is read from: teams own themselves (their leads administer them). */
export interface EntityTable {
  readonly resource: PermissionResource;
  readonly table: string;
}

const label = (resource: string): string => resource.replaceAll('_', ' ');

/** The 403 of a missing level on one entity. */
export function missingOnEntity(resource: PermissionResource, wanted: PermissionLevel, verb: string): AppError {
  const permission = `${resource}:${wanted}`;
  // The message stays the one every 403 gives (clients match on it); details say how else to get there.
  return new AppError('FORBIDDEN', `missing permission ${permission}`, {
    details: {
      missingPermission: permission,
      hint:
        `to ${verb} this ${label(resource)}: ${permission}, a grant of ${wanted} on it, or ` +
        `${wanted === 'admin' ? 'leading' : 'membership of'} the team that owns it`,
    },
  });
}

/** The caller's level on the entity `id` (kind permission first), or undefined when it does not exist. */
export async function callerLevel(
  services: Services,
  principal: Principal,
  target: EntityTable,
  id: string,
): Promise<PermissionLevel | null | undefined> {
  const relation = await relationTo(services.db, principal.userId, target.table, id, target.resource === 'team' ? 'id' : 'owner_id');
  return relation === undefined ? undefined : entityLevel(principal.permissions, target.resource, relation);
}

/**
 * The signed-in caller, who must hold `wanted` on the entity `id`. An entity that does not exist is
 * the command's 404 for callers who may read the kind, and a 404 here for the others.
 */
export async function authorizeOnEntity(
  services: Services,
  call: WriteCall,
  target: EntityTable,
  id: string,
  wanted: PermissionLevel,
  verb: string,
): Promise<Principal> {
  const principal = authorize(call.request);
  const byKind = kindLevel(principal.permissions, target.resource);
  if (levelIncludes(byKind, wanted)) return principal;
  const level = await callerLevel(services, principal, target, id);
  if (level === undefined) {
    if (byKind !== null) return principal;
    throw notFound(`${label(target.resource)} not found`);
  }
  // One the caller may not even read is as absent as one that does not exist.
  if (!levelIncludes(level, 'read')) throw notFound(`${label(target.resource)} not found`);
  if (!levelIncludes(level, wanted)) throw missingOnEntity(target.resource, wanted, verb);
  return principal;
}

/** Whether a create body names its owner (an explicit null included): otherwise the caller's only team owns it. */
export const namesOwner = (body: unknown): boolean => typeof body === 'object' && body !== null && 'ownerId' in body;

/**
 * The owner a new entity gets and the right to create it: the owner named, else the caller's team
 * when they are in exactly one. Creating needs the kind's write, or membership of the owning team
 * (or, where `unownedCreates`, nothing more for an entity no team owns).
 */
export async function ownerOnCreate(
  services: Services,
  call: WriteCall,
  resource: PermissionResource,
  named: string | null | undefined,
  unownedCreates: boolean,
): Promise<string | null> {
  const principal = authorize(call.request);
  const mayWriteKind = levelIncludes(kindLevel(principal.permissions, resource), 'write');
  const teams =
    named === null || (named !== undefined && mayWriteKind) ? [] : (principal.teams ?? (await teamsOf(services.db, principal.userId)));
  const owner = named !== undefined ? named : teams.length === 1 ? (teams[0]?.teamId ?? null) : null;
  if (mayWriteKind) return owner;
  if (owner !== null && teams.some((team) => team.teamId === owner.toLowerCase())) return owner;
  if (owner === null && unownedCreates) return null;
  throw new AppError('FORBIDDEN', `missing permission ${resource}:write`, {
    details: {
      missingPermission: `${resource}:write`,
      hint: `to create a ${label(resource)}: ${resource}:write, or name as its owner (ownerId) a team you are in`,
    },
  });
}

/** A change of owner needs `admin` on the entity (the kind's, a grant, or leading the owning team). */
export async function authorizeOwnerChange(
  services: Services,
  call: WriteCall,
  target: EntityTable,
  id: string,
  current: unknown,
  next: unknown,
): Promise<void> {
  if (next === undefined || next === current) return;
  await authorizeOnEntity(services, call, target, id, 'admin', 'change the owner of');
}
