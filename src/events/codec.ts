import { AppError } from '../errors.js';
import type { Keyring } from './crypto.js';
import { eventMetadataSchema, type EventDefinition, type EventMetadata } from './define.js';
import { decryptSecrets, encryptSecrets } from './secret-fields.js';
import type { NewEvent, RecordedEvent } from './store/port.js';

/** An event as the domain sees it. Aggregates narrow this to their own unions. */
export interface DomainEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A stored event decoded: current schema version, secrets decrypted, data validated. */
export interface DecodedEvent<E extends DomainEvent = DomainEvent> {
  readonly event: E;
  readonly metadata: EventMetadata;
  readonly eventId: string;
  readonly streamId: string;
  readonly streamRevision: bigint;
  readonly position: bigint;
}

/** Validates, encrypts and stamps events on their way in; upcasts, decrypts and validates them on their way out. */
export interface EventCodec {
  /** Validates, encrypts secret fields and stamps metadata. A schema failure here is a bug. */
  encode(event: DomainEvent, metadata: Omit<EventMetadata, 'schemaVersion'>, eventId: string): NewEvent;
  /** Upcasts, decrypts and validates a stored event. */
  decode<E extends DomainEvent = DomainEvent>(recorded: RecordedEvent): DecodedEvent<E>;
  knows(type: string): boolean;
  definition(type: string): EventDefinition | undefined;
}

/** The codec over every event definition of the service. */
export function createEventCodec(definitions: readonly EventDefinition[], keyring: Keyring): EventCodec {
  const byType = new Map<string, EventDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new TypeError(`event type ${definition.type} is defined twice`);
    byType.set(definition.type, definition);
  }
  const require = (type: string): EventDefinition => {
    const definition = byType.get(type);
    if (!definition) throw new AppError('INTERNAL', `unknown event type ${type}`);
    return definition;
  };

  return {
    knows: (type) => byType.has(type),
    definition: (type) => byType.get(type),
    encode(event, metadata, eventId) {
      const definition = require(event.type);
      const parsed = definition.schema.safeParse(event.data);
      if (!parsed.success) throw new TypeError(`event ${event.type} does not match its schema: ${parsed.error.message}`);
      return {
        eventId,
        type: event.type,
        data: encryptSecrets(parsed.data, definition.secretPaths, keyring),
        metadata: { ...metadata, schemaVersion: definition.version },
      };
    },
    decode<E extends DomainEvent>(recorded: RecordedEvent): DecodedEvent<E> {
      const definition = require(recorded.type);
      const metadata = eventMetadataSchema.safeParse(recorded.metadata);
      if (!metadata.success) throw new AppError('INTERNAL', `event ${recorded.eventId} has invalid metadata`);
      let data: Readonly<Record<string, unknown>> = recorded.data;
      for (let version = metadata.data.schemaVersion; version < definition.version; version++) {
        const upcast = definition.upcasters[version];
        if (!upcast) throw new AppError('INTERNAL', `event ${recorded.type} v${version} has no upcaster`);
        data = upcast(data);
      }
      const parsed = definition.schema.safeParse(decryptSecrets(data, definition.secretPaths, keyring));
      if (!parsed.success) throw new AppError('INTERNAL', `event ${recorded.eventId} (${recorded.type}) does not match its schema`);
      return {
        event: { type: recorded.type, data: parsed.data } as E,
        metadata: { ...metadata.data, schemaVersion: definition.version },
        eventId: recorded.eventId,
        streamId: recorded.streamId,
        streamRevision: recorded.streamRevision,
        position: recorded.position,
      };
    },
  };
}
