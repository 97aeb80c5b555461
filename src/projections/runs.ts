import type { DecodedEvent } from '../events/codec.js';
import { resourceEventTypes } from '../events/resource.js';
import { STREAMS } from '../events/streams.js';
import type { LifecycleAction, LifecycleState } from '../model/lifecycle.js';
import { runActionOf } from '../model/run.js';
import { actorUserId } from './metadata.js';
import type { Projection } from './projection.js';

/**
 * The runs read model (docs/contract.md §2, "Runs"), derived from resources' lifecycle events: an
 * `execute` queues a run whose id is that event's id; `start`, `succeed` and `fail` move the run the
 * resource queued last before them. A batch is a few set-based statements whatever its size (a
 * seed's batches hold thousands of lifecycle events): one insert of every run it queues, then one
 * update per round of moves, the k-th round holding each resource's k-th move, so a resource's moves
 * apply in order and no statement touches a run twice. Each move is guarded by the run's status and
 * by the stream revision the run last took (`revision`), so replaying events changes nothing.
 */

interface Transitioned extends Readonly<Record<string, unknown>> {
  readonly action: LifecycleAction;
  readonly state: LifecycleState;
  readonly outputs?: Record<string, unknown>;
  readonly error?: string;
}

/** The lifecycle actions that move a run once it is queued. */
type Move = 'start' | 'succeed' | 'fail' | 'cancel';

// Unqualified table names: a rebuild replays into a shadow schema through search_path.
const QUEUE = `INSERT INTO runs (id, resource_id, action, status, actor_id, queued_at, queued_revision, revision)
  SELECT q.id, q.resource_id, q.action, 'queued', q.actor_id, q.queued_at, q.revision, q.revision
  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::int[]) AS q(id, resource_id, action, actor_id,
    queued_at, revision)
  ON CONFLICT (id) DO NOTHING`;

/**
 * A round of moves, at most one per resource: each finds the run its resource queued last before the
 * move (the runs_resource_idx range below the move's revision) and moves it only from the status the
 * move starts from (`start` and `cancel` from queued, `succeed`/`fail` from in_progress).
 */
const MOVE = `UPDATE runs AS r SET
    status = CASE m.action WHEN 'start' THEN 'in_progress' WHEN 'succeed' THEN 'succeeded' WHEN 'cancel' THEN 'cancelled' ELSE 'failed' END,
    started_at = CASE WHEN m.action = 'start' THEN m.at ELSE r.started_at END,
    finished_at = CASE WHEN m.action = 'start' THEN r.finished_at ELSE m.at END,
    outputs = CASE WHEN m.action = 'succeed' THEN m.outputs::jsonb ELSE r.outputs END,
    error = CASE WHEN m.action = 'fail' THEN m.error ELSE r.error END,
    revision = m.revision
  FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::text[], $6::text[]) AS m(resource_id, revision, action, at,
    outputs, error)
  CROSS JOIN LATERAL (
    SELECT id FROM runs WHERE resource_id = m.resource_id AND queued_revision < m.revision ORDER BY queued_revision DESC LIMIT 1
  ) AS latest
  WHERE r.id = latest.id AND r.status = CASE WHEN m.action IN ('start', 'cancel') THEN 'queued' ELSE 'in_progress' END
    AND r.revision < m.revision`;

/** A batch's statements for the runs table, as column arrays: the runs it queues, then its rounds of moves. */
interface RunWrites {
  readonly queued: { id: string[]; resourceId: string[]; action: string[]; actorId: (string | null)[]; at: string[]; revision: number[] };
  readonly rounds: {
    resourceId: string[];
    revision: number[];
    action: Move[];
    at: string[];
    outputs: (string | null)[];
    error: (string | null)[];
  }[];
}

/** What a batch of events writes to the runs table (the lifecycle events that queue, start or end a run). */
function runWritesOf(events: readonly DecodedEvent[]): RunWrites {
  const queued: RunWrites['queued'] = { id: [], resourceId: [], action: [], actorId: [], at: [], revision: [] };
  const rounds: RunWrites['rounds'] = [];
  const movesSoFar = new Map<string, number>();
  for (const decoded of events) {
    if (decoded.event.type !== resourceEventTypes.transitioned) continue;
    // The codec validated it against the transitioned event's schema.
    const data = decoded.event.data as Transitioned;
    const resourceId = STREAMS.resource.parse(decoded.streamId);
    const revision = Number(decoded.streamRevision);
    const at = decoded.metadata.occurredAt;
    if (data.action === 'execute') {
      queued.id.push(decoded.eventId);
      queued.resourceId.push(resourceId);
      queued.action.push(runActionOf(data.state));
      queued.actorId.push(actorUserId(decoded.metadata)?.toLowerCase() ?? null);
      queued.at.push(at);
      queued.revision.push(revision);
      continue;
    }
    if (data.action !== 'start' && data.action !== 'succeed' && data.action !== 'fail' && data.action !== 'cancel') continue;
    const k = movesSoFar.get(resourceId) ?? 0;
    movesSoFar.set(resourceId, k + 1);
    const round = (rounds[k] ??= { resourceId: [], revision: [], action: [], at: [], outputs: [], error: [] });
    round.resourceId.push(resourceId);
    round.revision.push(revision);
    round.action.push(data.action);
    round.at.push(at);
    round.outputs.push(data.action === 'succeed' ? JSON.stringify(data.outputs ?? {}) : null);
    round.error.push(data.action === 'fail' ? (data.error ?? null) : null);
  }
  return { queued, rounds };
}

/** The runs projection: the runs a batch queues in one insert, then its moves round by round. */
export const runsProjection: Projection = {
  name: 'runs',
  tables: ['runs'],
  handles: new Set([resourceEventTypes.transitioned]),
  async applyBatch(tx, events) {
    const { queued, rounds } = runWritesOf(events);
    if (queued.id.length > 0)
      await tx.query(QUEUE, [queued.id, queued.resourceId, queued.action, queued.actorId, queued.at, queued.revision]);
    for (const round of rounds)
      await tx.query(MOVE, [round.resourceId, round.revision, round.action, round.at, round.outputs, round.error]);
  },
};
