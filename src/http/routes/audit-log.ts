import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql, type Selectable } from 'kysely';
import { rowsAs } from '../../storage/dynamic.js';
import { AppError } from '../../errors.js';
import { diffText, type FieldChange } from '../../projections/audit-history.js';
import { applyFilters, applyPage, contentRange, listWithTotal, parseListQuery, type ListQuery } from '../../read/list-query.js';
import { auditLogScope } from '../../read/audit-log.js';
import { namesThen } from '../../read/names-then.js';
import { auditLogListSpec, ensureWholePositions, type AuditLogTable, type AuditLogTables } from '../../read/list-specs/audit-log.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { csvLine, preferredType } from '../csv.js';

const PROJECTIONS = ['audit_log'] as const;

/** One audit entry as the REST API shows it (docs/contract.md §7). */
export interface AuditLogView {
  readonly id: string;
  readonly at: string;
  readonly actorId: string | null;
  /** The actor's display name, else identifier (null for the system or an unknown user). */
  readonly actorName: string | null;
  /** The event type, e.g. `ResourceTransitioned`. */
  readonly action: string;
  /** The action as a verb: `created`, `approved`, `signed_in`, … */
  readonly verb: string;
  readonly entityType: string;
  readonly entityId: string | null;
  /** The entity's name as its latest event left it. */
  readonly entityName: string | null;
  /** The fields the event changed, before → after (secrets never appear). */
  readonly diff: readonly FieldChange[];
  /** The reason the event gives (a rejection's, a sign-in failure's, a session end's), if any. */
  readonly reason: string | null;
  /** The event's data, secrets replaced by `********`. */
  readonly changes: Readonly<Record<string, unknown>>;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly position: number;
  /**
   * The names the entry's references (`templateId`, `memberIds`, …) had when it was written, by id:
   * those the caller may read (JSON only; docs/contract.md §7).
   */
  readonly names?: Readonly<Record<string, string>>;
}

const VIEW_COLUMNS = [
  'id',
  'at',
  'actor_id',
  'action',
  'verb',
  'entity_type',
  'entity_id',
  'entity_name',
  'diff',
  'reason',
  'changes',
  'correlation_id',
  'causation_id',
  'position',
] as const satisfies readonly (keyof AuditLogTable)[];

type AuditLogViewRow = Pick<Selectable<AuditLogTable>, (typeof VIEW_COLUMNS)[number]> & { readonly actor_name?: string | null };

/** A row of `audit_log` in the API's shape (timestamps ISO-8601, position a number). */
export const toAuditLogView = (row: AuditLogViewRow): AuditLogView => ({
  id: row.id,
  at: new Date(row.at).toISOString(),
  actorId: row.actor_id,
  actorName: row.actor_name ?? null,
  action: row.action,
  verb: row.verb,
  entityType: row.entity_type,
  entityId: row.entity_id,
  entityName: row.entity_name,
  diff: row.diff,
  reason: row.reason,
  changes: row.changes,
  correlationId: row.correlation_id,
  causationId: row.causation_id,
  // Positions stay far below 2^53 (EventStoreDB's are log offsets in bytes).
  position: Number(row.position),
});

/** The columns of the CSV export, in order. */
export const AUDIT_CSV_HEADER = [
  'at',
  'actor',
  'actorId',
  'verb',
  'action',
  'entityType',
  'entityName',
  'entityId',
  'changes',
  'reason',
  'correlationId',
  'position',
] as const;

/** One entry as a CSV line: the diff as `field: before → after; …`. */
export const auditCsvLine = (view: AuditLogView): string =>
  csvLine([
    view.at,
    view.actorName,
    view.actorId,
    view.verb,
    view.action,
    view.entityType,
    view.entityName,
    view.entityId,
    diffText(view.diff),
    view.reason,
    view.correlationId,
    view.position,
  ]);

/** Rows per statement while an export streams. */
const EXPORT_CHUNK = 1000;

/** `GET /audit_log` (under `/api`): the audit trail, filtered to what the caller may read; CSV on `Accept: text/csv`. */
export function auditLogRoutes(app: FastifyInstance, services: Services): void {
  const limits = { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 };
  const exportMax = services.config.AUDIT_EXPORT_MAX_ROWS;

  app.get('/audit_log', async (request, reply) => {
    const principal = authorize(request);
    const csv = preferredType(request.headers.accept, ['application/json', 'text/csv']) === 'text/csv';
    const input = request.query as Record<string, unknown>;
    // An export is the whole filtered list (up to AUDIT_EXPORT_MAX_ROWS), or the `range` asked for.
    const query = parseListQuery(auditLogListSpec, input, csv ? { maxPageSize: exportMax, defaultPageSize: exportMax } : limits);
    ensureWholePositions(query);
    await awaitMinPosition(request, services, PROJECTIONS);
    const scope = auditLogScope(principal);
    const db = services.db.withTables<AuditLogTables & { users: { id: string; display_name: string | null; identifier: string } }>();
    // An export reads the log as it stood when it began: entries appended meanwhile do not shift its pages.
    const ceiling = csv
      ? (
          await db
            .selectFrom('audit_log')
            .select((eb) => eb.fn.max('position').as('last'))
            .executeTakeFirst()
        )?.last
      : undefined;
    const from = () => {
      const all = db.selectFrom('audit_log');
      const scoped = scope ? all.where(scope) : all;
      return ceiling == null ? scoped : scoped.where('audit_log.position', '<=', ceiling);
    };
    // Names are not secret inside the service (docs/contract.md §4): every reader sees who acted.
    const actorName = db
      .selectFrom('users')
      .select(sql<string>`coalesce(users.display_name, users.identifier)`.as('name'))
      .where('users.id', '=', sql.ref<string>('audit_log.actor_id'))
      .limit(1);
    if (!csv) {
      const { rows, total } = await listWithTotal(db, auditLogListSpec, query, {
        select: (creator) => creator.selectFrom('audit_log').select(VIEW_COLUMNS).select(actorName.as('actor_name')),
        scope: (qb) => (scope ? qb.where(scope) : qb),
      });
      // The statement's creator is untyped (list-query/page.ts); the select above gives these rows.
      const views = rowsAs<AuditLogViewRow>(rows).map(toAuditLogView);
      const names = await namesThen(services.db, principal, views);
      return reply
        .header('Content-Range', contentRange(auditLogListSpec, query, views.length, total))
        .send(views.map((view, index) => ({ ...view, names: names[index] ?? {} })));
    }
    const page = (q: ListQuery) =>
      applyPage(applyFilters(from().select(VIEW_COLUMNS).select(actorName.as('actor_name')), auditLogListSpec, q), auditLogListSpec, q);
    const count = applyFilters(
      from().select((eb) => eb.fn.countAll<string>().as('total')),
      auditLogListSpec,
      query,
    );
    const total = Number((await count.executeTakeFirstOrThrow()).total);
    if (input.range === undefined && total > exportMax) {
      const message =
        `the export would hold ${total} entries, more than AUDIT_EXPORT_MAX_ROWS (${exportMax}): narrow the filter (e.g. ` +
        `a time range) or export in parts with range`;
      throw new AppError('EXPORT_TOO_LARGE', message, {
        errors: [{ field: 'filter', message: `matches ${total} entries; at most ${exportMax} are exported at once` }],
      });
    }
    const end = Math.min(query.offset + query.limit, total);
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(AUDIT_CSV_HEADER);
      for (let offset = query.offset; offset < end; offset += EXPORT_CHUNK) {
        const rows = await page({ ...query, offset, limit: Math.min(EXPORT_CHUNK, end - offset) }).execute();
        yield rows.map((row) => auditCsvLine(toAuditLogView(row))).join('');
        if (rows.length < EXPORT_CHUNK) break;
      }
    }
    const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="audit-log-${stamp}.csv"`)
      .header('Cache-Control', 'no-store')
      .header('Content-Range', contentRange(auditLogListSpec, query, Math.max(0, end - query.offset), total))
      .send(Readable.from(lines()));
  });
}
