import { sql, type Selectable } from 'kysely';
import type { Db } from '../storage/kysely.js';
import { rowsAs } from '../storage/dynamic.js';
import { listWithTotal, type ListQuery } from './list-query.js';
import { runListSpec, type RunTable, type RunTables } from './list-specs/runs.js';

/** One run as the REST API shows it (docs/contract.md §2, "Runs"). */
export interface RunView {
  readonly id: string;
  readonly resourceId: string;
  readonly action: string;
  readonly status: string;
  readonly actorId: string | null;
  readonly queuedAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly error: string | null;
  readonly outputs: Record<string, unknown> | null;
}

const COLUMNS = [
  'id',
  'resource_id',
  'action',
  'status',
  'actor_id',
  'queued_at',
  'started_at',
  'finished_at',
  'error',
  'outputs',
] as const satisfies readonly (keyof RunTable)[];

type RunRow = Pick<Selectable<RunTable>, (typeof COLUMNS)[number]>;

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** A `runs` row in the API's shape. */
export const toRunView = (row: RunRow): RunView => ({
  id: row.id,
  resourceId: row.resource_id,
  action: row.action,
  status: row.status,
  actorId: row.actor_id,
  queuedAt: new Date(row.queued_at).toISOString(),
  startedAt: iso(row.started_at),
  finishedAt: iso(row.finished_at),
  error: row.error,
  outputs: row.outputs,
});

/** A page of one resource's runs and how many match in all. */
export async function listRuns(db: Db, resourceId: string, query: ListQuery): Promise<{ rows: RunView[]; total: number }> {
  const { rows, total } = await listWithTotal(db, runListSpec, query, {
    select: (from) => from.selectFrom('runs').select(COLUMNS.map((column) => sql.ref(`runs.${column}`).as(column))),
    scope: (qb) => qb.where(sql.ref('runs.resource_id'), '=', resourceId),
  });
  return { rows: rowsAs<RunRow>(rows).map(toRunView), total };
}

/** One run, or undefined. */
export async function findRun(db: Db, id: string): Promise<RunView | undefined> {
  const row = await db.withTables<RunTables>().selectFrom('runs').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  return row ? toRunView(row) : undefined;
}
