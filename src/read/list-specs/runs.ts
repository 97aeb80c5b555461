import type { ColumnType } from 'kysely';
import { RUN_ACTIONS, RUN_STATUSES } from '../../model/run.js';
import type { ListSpec } from '../list-query.js';

/**
 * The `runs` read table (migration 020), as Kysely sees it; callers reach it through
 * `db.withTables<RunTables>()`, as the audit log does.
 */
export interface RunTable {
  id: string;
  resource_id: string;
  action: string;
  status: string;
  actor_id: string | null;
  queued_at: ColumnType<Date, Date | string, Date | string>;
  started_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  finished_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  error: string | null;
  outputs: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  queued_revision: number;
  revision: number;
}

/** The tables runs add to the database schema. */
export type RunTables = { runs: RunTable };

/** The runs list: by resource, action, status, actor and time; newest first. */
export const runListSpec: ListSpec<'runs', keyof RunTable> = {
  resource: 'runs',
  table: 'runs',
  fields: {
    id: { column: 'id', type: 'uuid' },
    resourceId: { column: 'resource_id', type: 'uuid' },
    action: { column: 'action', type: 'enum', values: RUN_ACTIONS },
    status: { column: 'status', type: 'enum', values: RUN_STATUSES },
    actorId: { column: 'actor_id', type: 'uuid' },
    queuedAt: { column: 'queued_at', type: 'datetime' },
    startedAt: { column: 'started_at', type: 'datetime' },
    finishedAt: { column: 'finished_at', type: 'datetime' },
    outputs: { column: 'outputs', type: 'json' },
  },
  search: [],
  defaultSort: ['queuedAt', 'DESC'],
};
