import type { DecodedEvent } from '../events/codec.js';
import type { EventDefinition } from '../events/define.js';
import { redactSecrets } from '../events/secret-fields.js';
import { auditEntityOf } from '../projections/audit-log.js';
import { actorUserId } from '../projections/metadata.js';

/**
 * One event of the log as a webhook receives it: a CloudEvents 1.0 structured JSON body
 * (docs/contract.md §9). `data` holds the event's fields with every secret redacted, exactly as
 * the audit log shows them; a definition-less event (none ships) carries no fields at all.
 */
export interface WebhookCloudEvent {
  readonly specversion: '1.0';
  readonly id: string;
  readonly source: string;
  readonly type: string;
  readonly subject: string;
  readonly time: string;
  readonly datacontenttype: 'application/json';
  /** Extension attributes (lower-case letters and digits only, as CloudEvents asks). */
  readonly infraledgerposition: string;
  readonly infraledgerrevision: number;
  readonly data: {
    readonly entityKind: string;
    readonly entityId: string | null;
    readonly eventType: string;
    readonly actorId: string | null;
    readonly correlationId: string;
    readonly fields: Readonly<Record<string, unknown>>;
  };
}

/** The CloudEvents `type` of an event type: `infraledger.ResourceApproved`. */
export const cloudEventType = (eventType: string): string => `infraledger.${eventType}`;

/** The body a webhook receives for one decoded event; `source` is the service's base URL. */
export function cloudEventOf(decoded: DecodedEvent, definition: EventDefinition | undefined, source: string): WebhookCloudEvent {
  const { event, metadata } = decoded;
  const { entityType, entityId } = auditEntityOf(decoded.streamId, event.data);
  const fields = definition?.type === event.type ? redactSecrets(event.data, definition.secretPaths, { when: definition.secretWhen }) : {};
  return {
    specversion: '1.0',
    id: decoded.eventId,
    source,
    type: cloudEventType(event.type),
    subject: `${entityType}/${entityId ?? ''}`,
    time: metadata.occurredAt,
    datacontenttype: 'application/json',
    infraledgerposition: String(decoded.position),
    infraledgerrevision: Number(decoded.streamRevision) + 1,
    data: {
      entityKind: entityType,
      entityId,
      eventType: event.type,
      actorId: actorUserId(metadata),
      correlationId: metadata.correlationId,
      fields,
    },
  };
}
