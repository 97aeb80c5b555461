import type { ColumnType } from 'kysely';
import { validationError } from '../../errors.js';
import type { FilterValue, ListQuery, ListSpec } from '../list-query.js';

/**
 * The `audit_log` read table (migration 006) as Kysely sees it. Kept next to its list spec until it
 * joins `Database` in schema.ts; callers reach it through `db.withTables<AuditLogTables>()`.
 */
export interface AuditLogTable {
  id: string;
  /** bigint: both drivers return it as a string. */
  position: ColumnType<string, string, string>;
  at: ColumnType<Date, Date | string, Date | string>;
  actor_id: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  changes: ColumnType<Record<string, unknown>, string, string>;
  correlation_id: string;
  causation_id: string | null;
  stream_id: string;
  /** Migration 022: the action as a verb, the entity's name, the changed fields, the reason given. */
  verb: string;
  entity_name: string | null;
  diff: ColumnType<readonly { field: string; before?: unknown; after?: unknown }[], string, string>;
  reason: string | null;
}

/** The tables the audit log adds to the database schema (a type alias: `withTables` wants an index-compatible type). */
export type AuditLogTables = { audit_log: AuditLogTable };

type AuditLogColumn = keyof AuditLogTable;

/**
 * The audit log list: what clients may filter, sort and search on. Newest first by default; `q`
 * searches the event type, the verb, the entity's name and id.
 */
export const auditLogListSpec: ListSpec<'audit_log', AuditLogColumn> = {
  resource: 'audit_log',
  table: 'audit_log',
  fields: {
    id: { column: 'id', type: 'uuid' },
    at: { column: 'at', type: 'datetime' },
    actorId: { column: 'actor_id', type: 'uuid' },
    action: { column: 'action', type: 'text' },
    verb: { column: 'verb', type: 'text' },
    entityType: { column: 'entity_type', type: 'text' },
    entityId: { column: 'entity_id', type: 'text' },
    entityName: { column: 'entity_name', type: 'text' },
    reason: { column: 'reason', type: 'text' },
    correlationId: { column: 'correlation_id', type: 'text' },
    position: { column: 'position', type: 'number' },
  },
  search: ['action', 'verb', 'entity_name', 'entity_id'],
  defaultSort: ['at', 'DESC'],
};

const isWhole = (value: FilterValue): boolean => typeof value === 'number' && Number.isSafeInteger(value);

/**
 * Positions are bigint, and a fraction would reach PostgreSQL as an invalid bigint (a 500). The list
 * engine's `integer` option caps at 32 bits, too small for EventStoreDB commit positions, so the
 * audit log checks its parsed query once more.
 * @throws AppError `VALIDATION` on `filter.position` when a position filter is not a whole number
 */
export function ensureWholePositions(query: ListQuery): void {
  const fractional = query.conditions.some(
    (c) =>
      (c.kind === 'compare' && c.column === 'position' && !isWhole(c.value)) ||
      (c.kind === 'oneOf' && c.column === 'position' && !c.values.every(isWhole)),
  );
  if (!fractional) return;
  const issue = { field: 'filter.position', message: 'expected a whole number (an event position)' };
  throw validationError(`invalid list query: ${issue.field}: ${issue.message}`, [issue]);
}
