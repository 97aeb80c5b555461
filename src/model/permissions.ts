import { CATALOG_KINDS, type CatalogKind } from './catalog-kinds.js';
import { AppError } from '../errors.js';

/** The catalog's kinds (./catalog-kinds.ts), as permission resources. */
export const ENTITY_RESOURCES: readonly CatalogKind[] = CATALOG_KINDS;

/**
 * Kinds whose owned entities are private to their owners (docs/contract.md §6): an owned secret or
 * integration is seen by its team, its grantees and holders of the kind's write, not by every reader.
 */
export const PRIVATE_WHEN_OWNED: ReadonlySet<string> = new Set(['secret', 'integration']);

/** Everything a permission can name: the catalog, teams, and the administration surfaces. */
export const RESOURCES = [...ENTITY_RESOURCES, 'team', 'webhook', 'auth_provider', 'user', 'audit_log', 'projection'] as const;
/** Anything a permission can name. */
export type PermissionResource = (typeof RESOURCES)[number];

/** Permission levels, weakest first. */
export const LEVELS = ['read', 'write', 'admin'] as const;
/** A permission level. */
export type PermissionLevel = (typeof LEVELS)[number];

/** `{resource}:{level}`; `admin` ⊃ `write` ⊃ `read`. */
export type Permission = `${PermissionResource}:${PermissionLevel}`;

/** The roles, weakest first. */
export const ROLES = ['default', 'infra', 'super'] as const;
/** A role. */
export type Role = (typeof ROLES)[number];

const rank = (level: PermissionLevel): number => LEVELS.indexOf(level);

/** What each role grants (docs/contract.md §6). `default` writing its own resources is decided per resource. */
const ROLE_GRANTS: Record<Role, readonly Permission[]> = {
  default: [...ENTITY_RESOURCES.map((r) => `${r}:read` as const), 'team:read'],
  infra: [...ENTITY_RESOURCES.map((r) => `${r}:write` as const), 'team:read'],
  super: RESOURCES.map((r) => `${r}:admin` as const),
};

const GRANT = /^([a-z_]+):(read|write|admin)$/;

/** Parses a grant string; undefined when it is not one. */
export function parseGrant(text: string): ParsedGrant | undefined {
  const known = PARSED.get(text);
  if (known) return known;
  const match = GRANT.exec(text);
  const resource = match?.[1] as PermissionResource | undefined;
  if (!match || !resource || !(RESOURCES as readonly string[]).includes(resource)) return undefined;
  const parsed = { resource, level: match[2] as PermissionLevel };
  // Only valid grants are kept: at most resources × levels entries, whatever callers pass.
  PARSED.set(text, parsed);
  return parsed;
}

interface ParsedGrant {
  readonly resource: PermissionResource;
  readonly level: PermissionLevel;
}

/** Every check parses the held permissions (several per row of a GraphQL page), so each text is parsed once. */
const PARSED = new Map<string, ParsedGrant>();

/**
 * Every request's caller is built from their roles and grants, and few combinations exist: each is
 * worked out once and the same frozen list answered (callers' lists can then be told apart by
 * identity, as the GraphQL statement caches do). Bounded: a store full of distinct grants only
 * works each out again.
 */
const EFFECTIVE = new Map<string, readonly Permission[]>();
const EFFECTIVE_KEPT = 1000;

/** The highest level per resource that roles and extra grants give, as a sorted list of permissions (shared: never mutate it). */
export function effectivePermissions(roles: readonly string[], grants: readonly string[]): readonly Permission[] {
  const key = JSON.stringify([roles, grants]);
  const known = EFFECTIVE.get(key);
  if (known) return known;
  const worked = Object.freeze(workOutPermissions(roles, grants));
  if (EFFECTIVE.size >= EFFECTIVE_KEPT) EFFECTIVE.clear();
  EFFECTIVE.set(key, worked);
  return worked;
}

function workOutPermissions(roles: readonly string[], grants: readonly string[]): Permission[] {
  const best = new Map<PermissionResource, PermissionLevel>();
  const consider = (text: string): void => {
    const grant = parseGrant(text);
    if (!grant) return;
    const current = best.get(grant.resource);
    if (current === undefined || rank(grant.level) > rank(current)) best.set(grant.resource, grant.level);
  };
  // Roles come from stored data: an unknown one grants nothing.
  const byRole: Partial<Record<string, readonly Permission[]>> = ROLE_GRANTS;
  for (const role of roles) for (const permission of byRole[role] ?? []) consider(permission);
  for (const grant of grants) consider(grant);
  // An entity kind's admin may send that kind's events out through a webhook (the webhook writes
  // check every kind it names: ../edge/writes/catalog-entities.ts).
  if ([...ENTITY_RESOURCES, 'team' as const].some((resource) => best.get(resource) === 'admin')) consider('webhook:write');
  return [...best.entries()].map(([resource, level]): Permission => `${resource}:${level}`).sort();
}

/** Whether the held permissions include `wanted` (a higher level includes the lower ones). */
export function allows(held: readonly Permission[], wanted: Permission): boolean {
  const want = parseGrant(wanted);
  if (!want) return false;
  return held.some((p) => {
    const have = parseGrant(p);
    return have !== undefined && have.resource === want.resource && rank(have.level) >= rank(want.level);
  });
}

/** Throws the 403 that names the missing permission. */
export function ensureAllowed(held: readonly Permission[], wanted: Permission): void {
  if (!allows(held, wanted)) throw new AppError('FORBIDDEN', `missing permission ${wanted}`, { details: { missingPermission: wanted } });
}

/** The level `held` gives on `resource` (the highest), or null. */
export function kindLevel(held: readonly Permission[], resource: PermissionResource): PermissionLevel | null {
  let best: PermissionLevel | null = null;
  for (const permission of held) {
    const have = parseGrant(permission);
    if (have?.resource === resource && (best === null || rank(have.level) > rank(best))) best = have.level;
  }
  return best;
}

/** What ties a caller to one entity beyond their roles: the owning team and the entity's grants. */
export interface EntityRelation {
  /** Whether the entity has an owner at all. */
  readonly owned: boolean;
  /** The caller's role in the owning team, when they are in it. */
  readonly ownerRole: 'member' | 'lead' | null;
  /** The levels the entity's grants give the caller, directly or through their teams. */
  readonly grantLevels: readonly PermissionLevel[];
}

/** The level a team role gives on what the team owns. */
export const TEAM_ROLE_LEVEL = { member: 'write', lead: 'admin' } as const satisfies Record<string, PermissionLevel>;

/**
 * The rule of docs/contract.md §6, in one place: the caller's level on one entity is the highest of
 * the kind-level permission (roles and grants), the entity's grants to them or their teams, and
 * their membership of the owning team (member → write, lead → admin). On a kind private when owned,
 * a kind-level `read` does not reach an owned entity. The read side applies the same rule in SQL
 * (src/read/entity-access.ts); a test holds the two together.
 */
export function entityLevel(held: readonly Permission[], resource: PermissionResource, relation: EntityRelation): PermissionLevel | null {
  const levels: PermissionLevel[] = [...relation.grantLevels];
  const byKind = kindLevel(held, resource);
  if (byKind !== null && !(byKind === 'read' && relation.owned && PRIVATE_WHEN_OWNED.has(resource))) levels.push(byKind);
  // A team "owns" itself: its lead administers it, its members only read it.
  if (relation.ownerRole !== null)
    levels.push(resource === 'team' && relation.ownerRole === 'member' ? 'read' : TEAM_ROLE_LEVEL[relation.ownerRole]);
  return levels.reduce<PermissionLevel | null>((best, level) => (best === null || rank(level) > rank(best) ? level : best), null);
}

/** Whether `level` includes `wanted`. */
export const levelIncludes = (level: PermissionLevel | null, wanted: PermissionLevel): boolean =>
  level !== null && rank(level) >= rank(wanted);

/**
 * The right under which the caller decides (approves or rejects) a resource request, by the rule of
 * docs/contract.md §6 (approvals by the owners), or undefined: holders of `resource:admin` decide
 * every request; one whose template a team owns is decided by those with `admin` on the template
 * (the team's leads, admin grantees, `template:admin`); one whose template no team owns by
 * `resource:write`. The read side lists the same requests (src/read/entity-access.ts).
 */
export function approverRight(
  held: readonly Permission[],
  template: EntityRelation & { readonly ownerName: string | null },
): string | undefined {
  if (allows(held, 'resource:admin')) return 'resource:admin';
  if (!template.owned) return allows(held, 'resource:write') ? 'resource:write' : undefined;
  if (!levelIncludes(entityLevel(held, 'template', template), 'admin')) return undefined;
  return template.ownerRole === 'lead' ? `lead of team ${template.ownerName ?? ''}`.trim() : 'admin on the template';
}
