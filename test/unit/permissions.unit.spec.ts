import { describe, expect, it } from 'vitest';
import {
  allows,
  effectivePermissions,
  ensureAllowed,
  ENTITY_RESOURCES,
  parseGrant,
  RESOURCES,
  type Permission,
  type PermissionLevel,
} from '../../src/model/permissions.js';
import { AppError } from '../../src/errors.js';

const every = (resources: readonly string[], level: PermissionLevel): Permission[] =>
  resources.map((r) => `${r}:${level}` as Permission).sort();

// Both roles read teams (who owns what); only super administers them.
const CATALOG_READ = [...every(ENTITY_RESOURCES, 'read'), 'team:read'].sort();
const CATALOG_WRITE = [...every(ENTITY_RESOURCES, 'write'), 'team:read'].sort();
const EVERYTHING_ADMIN = every(RESOURCES, 'admin');

/** The refusal `ensureAllowed` throws, or undefined when it lets the caller through. */
function refusal(
  held: readonly Permission[],
  wanted: Permission,
): { code: string; message: string; details: Readonly<Record<string, unknown>> } | undefined {
  try {
    ensureAllowed(held, wanted);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { code, message, details } = error as AppError;
    return { code, message, details };
  }
}

describe('the permissions of each role', () => {
  it('lets default read every catalog entity and nothing else', () => {
    expect(effectivePermissions(['default'], [])).toEqual(CATALOG_READ);
  });

  it('lets infra write every catalog entity, but not administer providers, users, the audit log or projections', () => {
    expect(effectivePermissions(['infra'], [])).toEqual(CATALOG_WRITE);
  });

  it('lets super administer everything, the administration surfaces included', () => {
    const permissions = effectivePermissions(['super'], []);
    expect(permissions).toEqual(EVERYTHING_ADMIN);
    for (const p of ['auth_provider:admin', 'user:admin', 'audit_log:admin', 'projection:admin'] as const) expect(permissions).toContain(p);
  });

  it('gives nothing to a user without roles or grants', () => {
    expect(effectivePermissions([], [])).toEqual([]);
  });

  it('keeps the highest level per resource when roles are combined', () => {
    expect(effectivePermissions(['default', 'infra'], [])).toEqual(CATALOG_WRITE);
    expect(effectivePermissions(['infra', 'super', 'default'], [])).toEqual(EVERYTHING_ADMIN);
  });

  it('answers sorted, one permission per resource', () => {
    const permissions = effectivePermissions(['default', 'infra'], ['template:admin', 'audit_log:read']);
    expect(permissions).toEqual([...permissions].sort());
    expect(new Set(permissions.map((p) => p.split(':')[0])).size).toBe(permissions.length);
  });
});

describe('extra grants', () => {
  it('raise the level a role gives for that resource only', () => {
    expect(effectivePermissions(['default'], ['template:write'])).toEqual(
      CATALOG_READ.map((p) => (p === 'template:read' ? 'template:write' : p)),
    );
  });

  it('add resources the role does not reach', () => {
    expect(effectivePermissions(['default'], ['audit_log:read', 'user:admin'])).toEqual(
      [...CATALOG_READ, 'audit_log:read', 'user:admin'].sort(),
    );
  });

  it('never lower what a role gives', () => {
    expect(effectivePermissions(['infra'], ['template:read'])).toEqual(CATALOG_WRITE);
    expect(effectivePermissions(['super'], ['user:read'])).toEqual(EVERYTHING_ADMIN);
  });

  it('work without any role', () => {
    expect(effectivePermissions([], ['secret:write', 'secret:read'])).toEqual(['secret:write']);
  });
});

describe('unknown roles and grants', () => {
  it('are ignored: an unknown role grants nothing', () => {
    expect(effectivePermissions(['root', 'admin', 'Super', ''], [])).toEqual([]);
    expect(effectivePermissions(['root', 'default'], [])).toEqual(CATALOG_READ);
  });

  it('are ignored: a grant naming no known resource or level grants nothing', () => {
    const bogus = [
      'bogus:read',
      'template:delete',
      'Template:write',
      'template:write:extra',
      'template',
      ':read',
      '*:admin',
      ' template:write',
      '',
    ];
    expect(effectivePermissions(['default'], bogus)).toEqual(CATALOG_READ);
    for (const text of bogus) expect(parseGrant(text), text).toBeUndefined();
  });

  it('parse the grants that are valid into resource and level', () => {
    expect(parseGrant('source_code_version:admin')).toEqual({ resource: 'source_code_version', level: 'admin' });
    expect(parseGrant('audit_log:read')).toEqual({ resource: 'audit_log', level: 'read' });
  });
});

describe('allows', () => {
  it('holds admin ⊃ write ⊃ read for one resource', () => {
    expect(allows(['template:admin'], 'template:admin')).toBe(true);
    expect(allows(['template:admin'], 'template:write')).toBe(true);
    expect(allows(['template:admin'], 'template:read')).toBe(true);
    expect(allows(['template:write'], 'template:admin')).toBe(false);
    expect(allows(['template:write'], 'template:write')).toBe(true);
    expect(allows(['template:write'], 'template:read')).toBe(true);
    expect(allows(['template:read'], 'template:admin')).toBe(false);
    expect(allows(['template:read'], 'template:write')).toBe(false);
    expect(allows(['template:read'], 'template:read')).toBe(true);
  });

  it('never lets one resource stand for another', () => {
    expect(allows(['template:admin'], 'executor:read')).toBe(false);
    expect(allows(['source_code:admin'], 'source_code_version:read')).toBe(false);
    expect(allows([], 'template:read')).toBe(false);
  });

  it('refuses a wanted permission that is not one', () => {
    expect(allows(EVERYTHING_ADMIN, 'bogus:read' as Permission)).toBe(false);
  });

  it('matches what each role may do (docs/contract.md §6)', () => {
    const defaults = effectivePermissions(['default'], []);
    const infra = effectivePermissions(['infra'], []);
    const superUser = effectivePermissions(['super'], []);
    expect([allows(defaults, 'template:read'), allows(defaults, 'template:write'), allows(defaults, 'user:read')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([allows(infra, 'workspace:write'), allows(infra, 'workspace:admin'), allows(infra, 'auth_provider:read')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([allows(superUser, 'auth_provider:admin'), allows(superUser, 'audit_log:read'), allows(superUser, 'projection:write')]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe('ensureAllowed', () => {
  it('lets a caller holding the permission (or a higher level) through', () => {
    expect(refusal(['template:write'], 'template:write')).toBeUndefined();
    expect(refusal(['template:admin'], 'template:read')).toBeUndefined();
  });

  it('refuses with FORBIDDEN naming the missing permission', () => {
    expect(refusal(['template:read'], 'template:write')).toEqual({
      code: 'FORBIDDEN',
      message: 'missing permission template:write',
      details: { missingPermission: 'template:write' },
    });
    expect(refusal([], 'audit_log:read')).toEqual({
      code: 'FORBIDDEN',
      message: 'missing permission audit_log:read',
      details: { missingPermission: 'audit_log:read' },
    });
  });
});

describe('the effective permissions of a caller', () => {
  it('are worked out once per roles and grants: one frozen list, shared by every caller holding them', () => {
    const first = effectivePermissions(['default'], ['template:write']);
    expect(effectivePermissions(['default'], ['template:write'])).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Other roles or grants give another list.
    expect(effectivePermissions(['default'], ['template:admin'])).not.toBe(first);
    expect(effectivePermissions(['default'], [])).not.toEqual(first);
  });
});
