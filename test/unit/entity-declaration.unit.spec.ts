import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventCodec } from '../../src/events/codec.js';
import { createKeyring } from '../../src/events/crypto.js';
import { templateEventTypes, templateEvents, templateFieldsSchema } from '../../src/events/template.js';
import {
  createBodySchema,
  createdEventVersioning,
  immutableFields,
  patchBodySchema,
  referencesOf,
  uniqueKeysOf,
  type EntityDeclaration,
} from '../../src/model/entity.js';
import { templateEntity } from '../../src/model/template.js';
import { catalogProjection, declaredColumns, declaredLinks } from '../../src/projections/catalog-projection.js';
import { declaredListSpec } from '../../src/read/list-specs/common.js';

const ID = '00000000-0000-4000-8000-000000000001';

describe('a declared entity (templates)', () => {
  describe('its write rules', () => {
    it('names the immutable fields', () => {
      expect(immutableFields(templateEntity)).toEqual(['template']);
    });

    it('holds a case-insensitive name and a case-sensitive slug as unique keys', () => {
      expect(uniqueKeysOf(templateEntity, { name: 'Web App', template: 'web_app' })).toEqual([
        { key: 'template-name:web app', field: 'name', message: 'a template named "Web App" already exists' },
        { key: 'template-slug:web_app', field: 'template', message: 'a template with the slug "web_app" already exists' },
      ]);
    });

    it('points at its parents and executors, each with its field and position', () => {
      expect(referencesOf(templateEntity, { parentIds: ['p1'], executorIds: ['e1', 'e2'] })).toEqual([
        { kind: 'template', id: 'p1', field: 'parentIds', index: 0 },
        { kind: 'executor', id: 'e1', field: 'executorIds', index: 0 },
        { kind: 'executor', id: 'e2', field: 'executorIds', index: 1 },
      ]);
    });
  });

  describe('its REST bodies', () => {
    it('fill defaults on create and refuse unknown keys', () => {
      expect(createBodySchema(templateEntity).parse({ name: ' Web ', template: 'web' })).toEqual({
        name: 'Web',
        template: 'web',
        description: '',
        labels: [],
        abstract: false,
        cloudResourceTypes: [],
        configuration: {},
        documentationUrl: null,
        parentIds: [],
        executorIds: [],
        ownerId: null,
        status: 'enabled',
      });
      expect(createBodySchema(templateEntity).safeParse({ name: 'Web', template: 'web', nope: 1 }).success).toBe(false);
    });

    it('take any subset on patch, and null for a nullable field', () => {
      expect(patchBodySchema(templateEntity).parse({ documentationUrl: null })).toEqual({ documentationUrl: null });
      expect(patchBodySchema(templateEntity).parse({})).toEqual({});
    });
  });

  describe('its events', () => {
    it('are at the version of the newest field, with an upcaster adding its default', () => {
      const { version, upcasters } = createdEventVersioning(templateEntity);
      // documentationUrl came in version 2, the owner in version 3: each step adds its own field.
      expect(version).toBe(3);
      expect(upcasters[1]?.({ name: 'Old' })).toEqual({ documentationUrl: null, name: 'Old' });
      expect(upcasters[2]?.({ name: 'Old', documentationUrl: null })).toEqual({ documentationUrl: null, ownerId: null, name: 'Old' });
    });

    it('read a created event written before the field existed, with the default', () => {
      const codec = createEventCodec(templateEvents, createKeyring({ active: randomBytes(32) }));
      const data = {
        id: ID,
        status: 'enabled',
        name: 'Old',
        template: 'old',
        description: '',
        labels: [],
        abstract: false,
        cloudResourceTypes: [],
        configuration: {},
        parentIds: [],
        executorIds: [],
      };
      const metadata = { actorId: null, correlationId: 'c', causationId: null, occurredAt: '2024-01-01T00:00:00.000Z', schemaVersion: 1 };
      const decoded = codec.decode({
        eventId: randomUUID(),
        type: templateEventTypes.created,
        data,
        metadata,
        streamId: `template-${ID}`,
        streamRevision: 0n,
        position: 1n,
        recordedAt: new Date(),
      });
      expect(decoded.event.data).toEqual({ ...data, documentationUrl: null, ownerId: null });
      expect(decoded.metadata.schemaVersion).toBe(3);
    });
  });

  describe('its read model', () => {
    it('has a column per value field and a link table per id list', () => {
      expect(declaredColumns(templateEntity)).toEqual({
        name: 'text',
        template: 'text',
        abstract: 'boolean',
        cloud_resource_types: 'text[]',
        configuration: 'jsonb',
        documentation_url: 'text',
        owner_id: 'uuid',
      });
      expect(declaredLinks(templateEntity).map((l) => [l.table, l.field])).toEqual([
        ['template_parents', 'parent_ids'],
        ['template_executors', 'executor_ids'],
      ]);
    });

    it('lists with filters for every field and link, and q over the search fields', () => {
      const spec = declaredListSpec(templateEntity);
      expect(Object.keys(spec.fields)).toContain('documentationUrl');
      expect(Object.keys(spec.links ?? {})).toEqual(['parentId', 'executorId']);
      expect(spec.search).toEqual(['name', 'template', 'description']);
    });
  });
});

describe('a projection built for events with a field it has no column for', () => {
  it('is refused when built, naming the field', () => {
    const entity = { ...templateEntity, fields: { ...templateEntity.fields } } satisfies EntityDeclaration;
    expect(() =>
      catalogProjection({
        table: entity.table,
        kind: entity.kind,
        events: templateEventTypes,
        fields: templateFieldsSchema.extend({ forgotten: z.string(), alsoForgotten: z.boolean() }),
        columns: declaredColumns(entity),
        links: declaredLinks(entity),
      }),
    ).toThrow(new TypeError('projection templates: event fields without a column: forgotten, alsoForgotten'));
  });
});
