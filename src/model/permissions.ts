import { AppError } from '../errors.js';

/** The nine catalog entity kinds of the seed, as permission resources. */
export const ENTITY_RESOURCES = [
  'executor',
  'integration',
  'resource',
  'secret',
  'source_code',
  'source_code_version',
  'storage',
  'template',
  'workspace',
] as const;

/** Everything a permission can name: the catalog plus the administration surfaces. */
export const RESOURCES = [...ENTITY_RESOURCES, 'auth_provider', 'user', 'audit_log', 'projection'] as const;
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
  default: ENTITY_RESOURCES.map((r) => `${r}:read` as const),
  infra: ENTITY_RESOURCES.map((r) => `${r}:write` as const),
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

/** The highest level per resource that roles and extra grants give, as a sorted list of permissions. */
export function effectivePermissions(roles: readonly string[], grants: readonly string[]): Permission[] {
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
