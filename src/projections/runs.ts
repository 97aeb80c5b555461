import type { DecodedEvent } from '../events/codec.js';
import { resourceEventTypes } from '../events/resource.js';
import { STREAMS } from '../events/streams.js';
import type { LifecycleAction, LifecycleState } from '../model/lifecycle.js';
import { runActionOf } from '../model/run.js';
import { actorUserId } from './metadata.js';
import type { Projection } from './projection.js';

/**
 * The runs read model (docs/contract.md §2, "Runs"), derived from resources' lifecycle events: an
 * `execute` queues a run whose id is that event's id; `start`, `succeed` and `fail` move the
 * resource's latest run. Each event is one statement, guarded by the resource stream revision the
 * run last took (`revision`), so replaying events changes nothing.
 */

interface Transitioned {
  readonly action: LifecycleAction;
  readonly state: LifecycleState;
  readonly outputs?: Record<string, unknown>;
  readonly error?: string;
}

/** One statement: its text and parameters. */
interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

// Unqualified table names: a rebuild replays into a shadow schema through search_path.
const QUEUE = `INSERT INTO runs (id, resource_id, action, status, actor_id, queued_at, queued_revision, revision)
  VALUES ($1, $2, $3, 'queued', $4, $5, $6, $6) ON CONFLICT (id) DO NOTHING`;

/** Moves the resource's latest run (the last one queued) when it is in `from` and older than the event. */
const move = (set: string, from: string): string => `UPDATE runs SET ${set}, revision = $2
  WHERE id = (SELECT id FROM runs WHERE resource_id = $1 ORDER BY queued_revision DESC LIMIT 1) AND status = '${from}' AND revision < $2`;

const START = move(`status = 'in_progress', started_at = $3`, 'queued');
const SUCCEED = move(`status = 'succeeded', finished_at = $3, outputs = $4::jsonb`, 'in_progress');
const FAIL = move(`status = 'failed', finished_at = $3, error = $4`, 'in_progress');

/** The statement a lifecycle event is for the runs table (none for the other actions). */
export function runStatementOf(decoded: DecodedEvent): Statement | undefined {
  if (decoded.event.type !== resourceEventTypes.transitioned) return undefined;
  const data = decoded.event.data as unknown as Transitioned;
  const resourceId = STREAMS.resource.parse(decoded.streamId);
  const revision = Number(decoded.streamRevision);
  const at = decoded.metadata.occurredAt;
  switch (data.action) {
    case 'execute':
      return { text: QUEUE, params: [decoded.eventId, resourceId, runActionOf(data.state), actorUserId(decoded.metadata)?.toLowerCase() ?? null, at, revision] };
    case 'start':
      return { text: START, params: [resourceId, revision, at] };
    case 'succeed':
      return { text: SUCCEED, params: [resourceId, revision, at, JSON.stringify(data.outputs ?? {})] };
    case 'fail':
      return { text: FAIL, params: [resourceId, revision, at, data.error ?? null] };
    default:
      return undefined;
  }
}

/** The runs projection: one statement per lifecycle event that queues, starts or ends a run. */
export const runsProjection: Projection = {
  name: 'runs',
  tables: ['runs'],
  handles: new Set([resourceEventTypes.transitioned]),
  async applyBatch(tx, events) {
    for (const event of events) {
      const statement = runStatementOf(event);
      if (statement) await tx.query(statement.text, statement.params);
    }
  },
};
