import { sql, type Expression, type SqlBool } from 'kysely';
import { allows, ENTITY_RESOURCES, type Permission } from '../model/permissions.js';

/** Which entries a caller may read: all of them, or those of the listed entity types. */
export type AuditLogVisibility = { readonly all: true } | { readonly all: false; readonly entityTypes: readonly string[] };

/**
 * docs/contract.md §7: `audit_log:read` (super) reads the whole log; anyone else reads the entries of the catalog
 * kinds they may read. Users, providers, tokens and sign-ins stay with the audit_log permission.
 * REST and GraphQL both scope the log with this.
 */
export function auditLogVisibility(permissions: readonly Permission[]): AuditLogVisibility {
  if (allows(permissions, 'audit_log:read')) return { all: true };
  return { all: false, entityTypes: [...ENTITY_RESOURCES, 'team' as const].filter((kind) => allows(permissions, `${kind}:read`)) };
}

/** The WHERE that keeps a caller to their entries; undefined when they may read them all. */
export function auditLogScope(visibility: AuditLogVisibility): Expression<SqlBool> | undefined {
  if (visibility.all) return undefined;
  // `IN ()` is a syntax error; nothing readable means no entries.
  if (visibility.entityTypes.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`${sql.ref('audit_log.entity_type')} IN (${sql.join(visibility.entityTypes)})`;
}
