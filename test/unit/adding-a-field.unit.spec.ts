import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEventCodec, type EventCodec } from '../../src/events/codec.js';
import { createKeyring } from '../../src/events/crypto.js';
import { catalogEvents } from '../../src/events/kits.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { createdEventVersioning, storedFieldsSchema, type EntityDeclaration } from '../../src/model/entity.js';

/**
 * docs/adding-a-field.md, done for real on a scratch entity: a field added to an entity with history
 * needs `addedIn`, nullable or not, or every created event written before it stops decoding. The
 * declaration's own checks pass either way; only decoding an older event tells.
 */
const scratch = (fields: EntityDeclaration['fields']): EntityDeclaration => ({
  name: 'Scratch',
  kind: 'scratch',
  plural: 'scratches',
  table: 'scratches',
  description: 'A scratch entity for this test.',
  fields,
});
const name = { kind: 'text', description: 'Name.', required: true } as const;
const region = { kind: 'text', description: 'Region.', nullable: true, default: null } as const;

const names = {
  created: 'ScratchCreated',
  updated: 'ScratchUpdated',
  enabled: 'ScratchEnabled',
  disabled: 'ScratchDisabled',
  deleted: 'ScratchDeleted',
} as const;
const keyring = createKeyring({ active: randomBytes(32) });
const codecOf = (entity: EntityDeclaration): EventCodec =>
  createEventCodec(catalogEvents(names, storedFieldsSchema(entity), [], createdEventVersioning(entity)), keyring);

/** A created event as the first version of the entity wrote it, read back as stored. */
function writtenByVersion1(): RecordedEvent {
  const written = codecOf(scratch({ name })).encode(
    { type: 'ScratchCreated', data: { id: 'a1', name: 'old', description: '', labels: [], status: 'enabled' } },
    { actorId: null, correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' },
    'e1',
  );
  return { ...written, streamId: 'scratch-a1', streamRevision: 0n, position: 1n, recordedAt: new Date(0) };
}

describe('adding a field to an entity with history', () => {
  it('with addedIn, reads events written before it with the default', () => {
    const decoded = codecOf(scratch({ name, region: { ...region, addedIn: 2 } })).decode(writtenByVersion1());
    expect(decoded.event.data).toMatchObject({ name: 'old', region: null });
    expect(decoded.metadata.schemaVersion).toBe(2);
  });

  it('without addedIn (even nullable, even with a default), can no longer read them: the trap the guide warns of', () => {
    expect(() => codecOf(scratch({ name, region })).decode(writtenByVersion1())).toThrow('does not match its schema');
  });
});
