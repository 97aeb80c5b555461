import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventCodec } from '../../src/events/codec.js';
import { createKeyring } from '../../src/events/crypto.js';
import { defineEvent } from '../../src/events/define.js';
import type { RecordedEvent } from '../../src/events/store/port.js';

const keyring = createKeyring({ active: randomBytes(32) });
const meta = { actorId: null, correlationId: 'corr-1', causationId: null, occurredAt: '2026-01-01T00:00:00.000Z' };

// v1 stored `{ url }`; v2 renamed it to `address` and added a secret `token`.
const SourceLinked = defineEvent('SourceLinked', z.object({ address: z.string(), token: z.string().optional() }), {
  version: 2,
  secretPaths: ['token'],
  upcasters: { 1: (data) => ({ address: data.url }) },
});

const recorded = (type: string, data: Record<string, unknown>, metadata: Record<string, unknown>): RecordedEvent => ({
  eventId: randomUUID(),
  type,
  data,
  metadata,
  streamId: 'source-1',
  streamRevision: 0n,
  position: 1n,
  recordedAt: new Date(),
});

describe('the event codec', () => {
  const codec = createEventCodec([SourceLinked], keyring);

  describe('when encoding', () => {
    it('stamps the schema version and metadata, and encrypts secret fields', () => {
      const stored = codec.encode({ type: 'SourceLinked', data: { address: 'https://git', token: 'ghp_secret' } }, meta, 'id-1');
      expect(stored.metadata).toEqual({ ...meta, schemaVersion: 2 });
      expect(stored.data.address).toBe('https://git');
      expect(String(stored.data.token)).toMatch(/^enc:v1:/);
      expect(JSON.stringify(stored)).not.toContain('ghp_secret');
    });

    it('refuses data that breaks the schema as a programming error', () => {
      expect(() => codec.encode({ type: 'SourceLinked', data: { address: 7 } }, meta, 'id-1')).toThrow(TypeError);
    });

    it('refuses an unknown event type', () => {
      expect(() => codec.encode({ type: 'Nope', data: {} }, meta, 'id-1')).toThrow('unknown event type Nope');
    });
  });

  describe('when decoding', () => {
    it('decrypts secret fields back', () => {
      const stored = codec.encode({ type: 'SourceLinked', data: { address: 'a', token: 't0k' } }, meta, 'id-1');
      const decoded = codec.decode(recorded('SourceLinked', { ...stored.data }, { ...stored.metadata }));
      expect(decoded.event).toEqual({ type: 'SourceLinked', data: { address: 'a', token: 't0k' } });
      expect(decoded.metadata.schemaVersion).toBe(2);
    });

    it('upcasts an event stored at an older version', () => {
      const decoded = codec.decode(recorded('SourceLinked', { url: 'https://old' }, { ...meta, schemaVersion: 1 }));
      expect(decoded.event.data).toEqual({ address: 'https://old' });
      expect(decoded.metadata.schemaVersion).toBe(2);
    });

    it('refuses stored data that does not match the schema', () => {
      expect(() => codec.decode(recorded('SourceLinked', { address: 1 }, { ...meta, schemaVersion: 2 }))).toThrow(
        /does not match its schema/,
      );
    });

    it('refuses invalid metadata', () => {
      expect(() => codec.decode(recorded('SourceLinked', { address: 'a' }, { schemaVersion: 2 }))).toThrow(/invalid metadata/);
    });
  });

  describe('when defining events', () => {
    it('requires an upcaster for every older version', () => {
      expect(() => defineEvent('Broken', z.object({}), { version: 3, upcasters: { 1: (d) => ({ ...d }) } })).toThrow(
        'event Broken v3 has no upcaster from v2',
      );
    });

    it('refuses the same type twice in one codec', () => {
      expect(() => createEventCodec([SourceLinked, SourceLinked], keyring)).toThrow('event type SourceLinked is defined twice');
    });
  });
});
