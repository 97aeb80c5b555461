import type { FastifyInstance } from 'fastify';
import type { Selectable } from 'kysely';
import { applyFilters, applyPage, contentRange, parseListQuery } from '../../read/list-query.js';
import { auditLogScope, auditLogVisibility } from '../../read/audit-log.js';
import { auditLogListSpec, ensureWholePositions, type AuditLogTable, type AuditLogTables } from '../../read/list-specs/audit-log.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';

const PROJECTIONS = ['audit_log'] as const;

/** One audit entry as the REST API shows it (docs/contract.md §7). */
export interface AuditLogView {
  readonly id: string;
  readonly at: string;
  readonly actorId: string | null;
  readonly action: string;
  readonly entityType: string;
  readonly entityId: string | null;
  /** The event's data, secrets replaced by `********`. */
  readonly changes: Readonly<Record<string, unknown>>;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly position: number;
}

const VIEW_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'action',
  'entity_type',
  'entity_id',
  'changes',
  'correlation_id',
  'causation_id',
  'position',
] as const satisfies readonly (keyof AuditLogTable)[];

type AuditLogViewRow = Pick<Selectable<AuditLogTable>, (typeof VIEW_COLUMNS)[number]>;

/** A row of `audit_log` in the API's shape (timestamps ISO-8601, position a number). */
export const toAuditLogView = (row: AuditLogViewRow): AuditLogView => ({
  id: row.id,
  at: new Date(row.at).toISOString(),
  actorId: row.actor_id,
  action: row.action,
  entityType: row.entity_type,
  entityId: row.entity_id,
  changes: row.changes,
  correlationId: row.correlation_id,
  causationId: row.causation_id,
  // Positions stay far below 2^53 (EventStoreDB's are log offsets in bytes).
  position: Number(row.position),
});

/** `GET /audit_log` (under `/api`): the audit trail, filtered to what the caller may read. */
export function auditLogRoutes(app: FastifyInstance, services: Services): void {
  const limits = { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 };

  app.get('/audit_log', async (request, reply) => {
    const principal = authorize(request);
    const query = parseListQuery(auditLogListSpec, request.query as Record<string, unknown>, limits);
    ensureWholePositions(query);
    await awaitMinPosition(request, services, PROJECTIONS);
    const scope = auditLogScope(auditLogVisibility(principal.permissions));
    const db = services.db.withTables<AuditLogTables>();
    const from = () => (scope ? db.selectFrom('audit_log').where(scope) : db.selectFrom('audit_log'));
    const page = applyPage(applyFilters(from().select(VIEW_COLUMNS), auditLogListSpec, query), auditLogListSpec, query);
    const count = applyFilters(from().select((eb) => eb.fn.countAll<string>().as('total')), auditLogListSpec, query);
    const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
    const total = Number(counted.total);
    return reply.header('Content-Range', contentRange(auditLogListSpec, query, rows.length, total)).send(rows.map(toAuditLogView));
  });
}
