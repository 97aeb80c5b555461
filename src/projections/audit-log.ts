import type { SqlClient } from '../storage/pool.js';
import { allEventDefinitions } from '../events/catalog.js';
import type { DecodedEvent } from '../events/codec.js';
import type { EventDefinition } from '../events/define.js';
import { referenceEvents } from '../events/reference.js';
import { redactSecrets } from '../events/secret-fields.js';
import { uniqueEvents } from '../events/unique.js';
import type { Projection } from './projection.js';
import { actorUserId } from './metadata.js';

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
}

/**
 * The audit row of one decoded event, with every secret path of its definition redacted (decoded
 * data is plaintext). Without a definition the secret paths are unknown, so nothing is stored.
 * @throws TypeError when `definition` is missing or describes another event type (a wiring bug)
 */
export function auditRowOf(decoded: DecodedEvent, definition: EventDefinition | undefined): AuditLogRow {
  const { event, metadata } = decoded;
  if (definition?.type !== event.type) throw new TypeError(`no event definition for ${event.type}: cannot redact its secrets`);
  const { entityType, entityId } = auditEntityOf(decoded.streamId, event.data);
  return {
    id: decoded.eventId,
    position: String(decoded.position),
    at: metadata.occurredAt,
    // Non-user actors (e.g. "system") have no user row to point at; the column is a user id.
    actor_id: actorUserId(metadata)?.toLowerCase() ?? null,
    action: event.type,
    entity_type: entityType,
    entity_id: entityId,
    changes: redactSecrets(event.data, definition.secretPaths),
    correlation_id: metadata.correlationId,
    causation_id: metadata.causationId,
    stream_id: decoded.streamId,
  };
}

const COLUMNS = 'id, position, at, actor_id, action, entity_type, entity_id, changes, correlation_id, causation_id, stream_id';

// Unqualified table name: a rebuild replays into a shadow schema through search_path.
const INSERT = `INSERT INTO audit_log (${COLUMNS})
  SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
    id uuid, position bigint, at timestamptz, actor_id uuid, action text, entity_type text, entity_id text,
    changes jsonb, correlation_id text, causation_id text, stream_id text)
  ON CONFLICT (id) DO NOTHING`;

/**
 * An audit log projection over `definitions` (a thunk, read on first use: the catalog imports every
 * event module, and reading it at module load could meet a half-initialised import cycle). Every
 * defined type but the internal bookkeeping ones is handled. One INSERT per batch; rows are keyed by
 * event id, so replaying a batch inserts nothing.
 */
export function createAuditLogProjection(definitions: () => readonly EventDefinition[]): Projection {
  let byType: ReadonlyMap<string, EventDefinition> | undefined;
  const audited = (): ReadonlyMap<string, EventDefinition> =>
    (byType ??= new Map(definitions().filter((d) => !INTERNAL_EVENT_TYPES.has(d.type)).map((d) => [d.type, d])));
  let handles: ReadonlySet<string> | undefined;
  return {
    name: 'audit_log',
    tables: ['audit_log'],
    get handles() {
      return (handles ??= new Set(audited().keys()));
    },
    async applyBatch(tx: SqlClient, events: readonly DecodedEvent[]): Promise<void> {
      if (events.length === 0) return;
      const rows = events.map((e) => auditRowOf(e, audited().get(e.event.type)));
      await tx.query(INSERT, [JSON.stringify(rows)]);
    },
  };
}

/** The service's audit log: every event type of the catalog but the internal bookkeeping ones. */
export const auditLogProjection: Projection = createAuditLogProjection(() => allEventDefinitions);
