import type { SqlClient } from '../storage/pool.js';
import { allEventDefinitions } from '../events/catalog.js';
import type { DecodedEvent } from '../events/codec.js';
import type { EventDefinition } from '../events/define.js';
import { referenceEvents } from '../events/reference.js';
import { redactSecrets } from '../events/secret-fields.js';
import { uniqueEvents } from '../events/unique.js';
import { PLAN_ONCE, type BatchClient, type Projection } from './projection.js';
import { existingRowIds } from './row-projection.js';
import { actorUserId } from './metadata.js';
import { historyStep, tracksFields, type FieldChange, type KnownFields } from './audit-history.js';

/**
 * Write-model bookkeeping (reservation and reference streams): they restate what the entity's own
 * event already says, so they are not audit facts of their own.
 */
export const INTERNAL_EVENT_TYPES: ReadonlySet<string> = new Set([...uniqueEvents, ...referenceEvents].map((d) => d.type));

/** Sign-in attempts are appended to one stream per day: `signin-<yyyy-mm-dd>`. */
const SIGN_IN_STREAM_PREFIX = 'signin-';

/** `<kind>-<id>`: the kind is a snake_case word, the id everything after its dash. */
const ENTITY_STREAM = /^([a-z][a-z0-9_]*)-(.+)$/;

/** What an audit entry is about. */
export interface AuditEntity {
  readonly entityType: string;
  readonly entityId: string | null;
}

/**
 * The entity an event belongs to, from its stream id: `template-<uuid>` → (`template`, uuid);
 * `signin-<day>` → (`sign_in`, the `userId` in the data, if any). A stream that follows neither
 * shape is its own entity type with no id, so the fact is still recorded.
 */
export function auditEntityOf(streamId: string, data: Readonly<Record<string, unknown>>): AuditEntity {
  if (streamId.startsWith(SIGN_IN_STREAM_PREFIX)) {
    // A failed sign-in may name no user (unknown account): the entry then has no entity id.
    const userId = data.userId;
    return { entityType: 'sign_in', entityId: typeof userId === 'string' && userId !== '' ? userId : null };
  }
  const match = ENTITY_STREAM.exec(streamId);
  const kind = match?.[1];
  const id = match?.[2];
  return kind === undefined || id === undefined ? { entityType: streamId, entityId: null } : { entityType: kind, entityId: id };
}

/** One `audit_log` row as it goes through jsonb_to_recordset (timestamps ISO, position a decimal string). */
export interface AuditLogRow {
  readonly id: string;
  readonly position: string;
  readonly at: string;
  readonly actor_id: string | null;
  readonly action: string;
  readonly entity_type: string;
  readonly entity_id: string | null;
  readonly changes: Record<string, unknown>;
  readonly correlation_id: string;
  readonly causation_id: string | null;
  readonly stream_id: string;
  /** `approved`, `created`, … (audit-history.ts). */
  readonly verb: string;
  /** The entity's name as its latest event left it (kept current on renames). */
  readonly entity_name: string | null;
  readonly diff: readonly FieldChange[];
  readonly reason: string | null;
}

/**
 * The audit row of one decoded event, with every secret path of its definition redacted (decoded
 * data is plaintext). Without a definition the secret paths are unknown, so nothing is stored.
 * @throws TypeError when `definition` is missing or describes another event type (a wiring bug)
 */
export function auditRowOf(
  decoded: DecodedEvent,
  definition: EventDefinition | undefined,
  before?: KnownFields,
): AuditLogRow & { readonly fields: KnownFields | undefined } {
  const { event, metadata } = decoded;
  if (definition?.type !== event.type) throw new TypeError(`no event definition for ${event.type}: cannot redact its secrets`);
  const { entityType, entityId } = auditEntityOf(decoded.streamId, event.data);
  const changes = redactSecrets(event.data, definition.secretPaths, { when: definition.secretWhen });
  const step = historyStep(event.type, changes, before, tracksFields(entityType, entityId));
  return {
    id: decoded.eventId,
    position: String(decoded.position),
    at: metadata.occurredAt,
    // Non-user actors (e.g. "system") have no user row to point at; the column is a user id.
    actor_id: actorUserId(metadata)?.toLowerCase() ?? null,
    action: event.type,
    entity_type: entityType,
    entity_id: entityId,
    changes,
    correlation_id: metadata.correlationId,
    causation_id: metadata.causationId,
    stream_id: decoded.streamId,
    verb: step.verb,
    entity_name: step.name,
    diff: step.diff,
    reason: step.reason,
    fields: step.fields,
  };
}

const COLUMNS =
  'id, position, at, actor_id, action, entity_type, entity_id, changes, correlation_id, causation_id, stream_id, verb, entity_name, ' +
  'diff, reason';

// Unqualified table names: a rebuild replays into a shadow schema through search_path.
const INSERT = `INSERT INTO audit_log (${COLUMNS})
  SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
    id uuid, position bigint, at timestamptz, actor_id uuid, action text, entity_type text, entity_id text,
    changes jsonb, correlation_id text, causation_id text, stream_id text, verb text, entity_name text, diff jsonb, reason text)
  ON CONFLICT (id) DO NOTHING`;

// Keys as two arrays: the planner sizes an unnest of them from the arrays themselves, and picks index
// lookups for a batch's few entities. jsonb_to_recordset counts as 100 rows whatever it holds, and
// against that a hash join over the whole table looked cheaper until it held tens of thousands of
// entities: every batch scanned every entity (2.5 ms at 4,000).
const KNOWN = `SELECT e.entity_type, e.entity_id, e.name, e.fields, e.position::text AS position
  FROM unnest($1::text[], $2::text[]) AS k(entity_type, entity_id)
  JOIN audit_entities e ON e.entity_type = k.entity_type AND e.entity_id = k.entity_id`;

// The position guard keeps a replayed batch from moving an entity back.
const REMEMBER = `INSERT INTO audit_entities (entity_type, entity_id, name, fields, position)
  SELECT entity_type, entity_id, name, fields, position FROM jsonb_to_recordset($1::jsonb)
    AS r(entity_type text, entity_id text, name text, fields jsonb, position bigint)
  ON CONFLICT (entity_type, entity_id) DO UPDATE SET name = EXCLUDED.name, fields = EXCLUDED.fields, position = EXCLUDED.position
    WHERE audit_entities.position < EXCLUDED.position`;

// Both in one statement (one round trip per batch fewer): neither reads what the other writes.
const INSERT_AND_REMEMBER = `WITH entries AS (${INSERT}) ${REMEMBER.replace('$1::jsonb', '$2::jsonb')}`;

// Every entry of a renamed entity shows its new name, so a filter on the name finds its whole history.
const RENAME = `UPDATE audit_log SET entity_name = r.name
  FROM jsonb_to_recordset($1::jsonb) AS r(entity_type text, entity_id text, name text)
  WHERE audit_log.entity_type = r.entity_type AND audit_log.entity_id = r.entity_id AND audit_log.entity_name IS DISTINCT FROM r.name`;

/** What the projection remembers of one entity between batches. */
interface Known {
  readonly name: string | null;
  readonly fields: KnownFields;
  readonly position: bigint;
}

const keyOf = (entityType: string, entityId: string): string => `${entityType}\u0000${entityId}`;

/**
 * The rows of a batch, each event read against its entity's fields as the previous event left them
 * (loaded once per batch, then carried along in memory), plus what to remember and which entities
 * were renamed. An event at or below an entity's remembered position was applied before: skipped.
 */
async function rowsOfBatch(tx: SqlClient, events: readonly DecodedEvent[], definitionOf: (type: string) => EventDefinition | undefined) {
  const entities = events.map((e) => ({ event: e, ...auditEntityOf(e.streamId, e.event.data) }));
  // Entities whose fields are kept, by key; those whose stream begins in this batch have nothing
  // remembered yet, so only the others are looked up (an entity is its own stream: existingRowIds).
  const tracking = entities.filter((e) => tracksFields(e.entityType, e.entityId));
  const keyOfEvent = new Map(tracking.map((e) => [e.event, keyOf(e.entityType, e.entityId ?? '')]));
  const entityOfKey = new Map(
    tracking.map((e) => [keyOf(e.entityType, e.entityId ?? ''), { entity_type: e.entityType, entity_id: e.entityId ?? '' }]),
  );
  const tracked = existingRowIds([...keyOfEvent.keys()], (event) => keyOfEvent.get(event) ?? '').flatMap(
    (key) => entityOfKey.get(key) ?? [],
  );
  const known = new Map<string, Known>();
  if (tracked.length > 0) {
    const { rows } = await tx.query<{ entity_type: string; entity_id: string; name: string | null; fields: KnownFields; position: string }>(
      KNOWN,
      [tracked.map((k) => k.entity_type), tracked.map((k) => k.entity_id)],
    );
    for (const row of rows)
      known.set(keyOf(row.entity_type, row.entity_id), { name: row.name, fields: row.fields, position: BigInt(row.position) });
  }
  const rows: AuditLogRow[] = [];
  const remembered = new Map<
    string,
    { entity_type: string; entity_id: string; name: string | null; fields: KnownFields; position: string }
  >();
  const renamed = new Map<string, { entity_type: string; entity_id: string; name: string | null }>();
  for (const { event, entityType, entityId } of entities) {
    const key = entityId !== null && tracksFields(entityType, entityId) ? keyOf(entityType, entityId) : undefined;
    const previous = key === undefined ? undefined : known.get(key);
    if (previous && previous.position >= event.position) continue;
    const { fields, ...row } = auditRowOf(event, definitionOf(event.event.type), previous?.fields);
    rows.push(row);
    if (key === undefined || entityId === null || fields === undefined) continue;
    known.set(key, { name: row.entity_name, fields, position: event.position });
    remembered.set(key, { entity_type: entityType, entity_id: entityId, name: row.entity_name, fields, position: String(event.position) });
    if (previous && previous.name !== row.entity_name)
      renamed.set(key, { entity_type: entityType, entity_id: entityId, name: row.entity_name });
  }
  return { rows, remembered: [...remembered.values()], renamed: [...renamed.values()] };
}

/**
 * An audit log projection over `definitions` (a thunk, read on first use: the catalog imports every
 * event module, and reading it at module load could meet a half-initialised import cycle). Every
 * defined type but the internal bookkeeping ones is handled. Per batch: one SELECT of the entities'
 * remembered fields (none when every entity is new), one statement inserting the entries and
 * upserting the fields (and one UPDATE when an entity was renamed). Rows are keyed by event id and
 * entities by their last position, so replaying a batch changes nothing.
 */
export function createAuditLogProjection(definitions: () => readonly EventDefinition[]): Projection {
  let byType: ReadonlyMap<string, EventDefinition> | undefined;
  const audited = (): ReadonlyMap<string, EventDefinition> =>
    (byType ??= new Map(
      definitions()
        .filter((d) => !INTERNAL_EVENT_TYPES.has(d.type))
        .map((d) => [d.type, d]),
    ));
  let handles: ReadonlySet<string> | undefined;
  return {
    name: 'audit_log',
    tables: ['audit_log', 'audit_entities'],
    get handles() {
      return (handles ??= new Set(audited().keys()));
    },
    async applyBatch(tx: BatchClient, events: readonly DecodedEvent[]): Promise<void> {
      if (events.length === 0) return;
      const { rows, remembered, renamed } = await rowsOfBatch(tx, events, (type) => audited().get(type));
      // No answer is read: the batch's transaction may send these with its COMMIT.
      if (rows.length > 0 && remembered.length > 0)
        await tx.write(INSERT_AND_REMEMBER, [JSON.stringify(rows), JSON.stringify(remembered)], PLAN_ONCE);
      else if (rows.length > 0) await tx.write(INSERT, [JSON.stringify(rows)], PLAN_ONCE);
      else if (remembered.length > 0) await tx.write(REMEMBER, [JSON.stringify(remembered)], PLAN_ONCE);
      // After the insert, so that this batch's earlier entries of the entity are renamed too.
      if (renamed.length > 0) await tx.write(RENAME, [JSON.stringify(renamed)]);
    },
  };
}

/** The service's audit log: every event type of the catalog but the internal bookkeeping ones. */
export const auditLogProjection: Projection = createAuditLogProjection(() => allEventDefinitions);
