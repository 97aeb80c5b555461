import type { Expression, SqlBool } from 'kysely';
import { allows, type Permission } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { READABLE_KINDS, readableEntries } from './entity-access.js';

/** Which entries a caller may read by kind: all of them, or those of the listed entity types. */
export type AuditLogVisibility = { readonly all: true } | { readonly all: false; readonly entityTypes: readonly string[] };

/**
 * docs/contract.md §7: `audit_log:read` (super) reads the whole log; anyone else reads the entries
 * of the kinds they may read (users, providers, tokens and sign-ins stay with the audit_log
 * permission), and of those only the entries of entities they may read (`auditLogScope`). This is
 * the kind-level part, which needs no statement.
 */
export function auditLogVisibility(permissions: readonly Permission[]): AuditLogVisibility {
  if (allows(permissions, 'audit_log:read')) return { all: true };
  return { all: false, entityTypes: READABLE_KINDS.filter((kind) => allows(permissions, `${kind}:read`)) };
}

/**
 * The WHERE that keeps a caller to the entries of entities they may read (the per-entity rule:
 * src/read/entity-access.ts `readableEntries`); undefined when they may read them all. REST (JSON
 * and CSV), GraphQL and the MCP server's `history` all scope the log with this.
 */
export const auditLogScope = (principal: Principal): Expression<SqlBool> | undefined => readableEntries(principal);
