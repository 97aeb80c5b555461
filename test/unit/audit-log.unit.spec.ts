import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { effectivePermissions, ENTITY_RESOURCES } from '../../src/model/permissions.js';
import { parseListQuery, type ListQuery } from '../../src/read/list-query.js';
import { auditLogListSpec as spec, ensureWholePositions } from '../../src/read/list-specs/audit-log.js';
import { AppError } from '../../src/errors.js';
import { allEventDefinitions } from '../../src/events/catalog.js';
import type { DecodedEvent } from '../../src/events/codec.js';
import { defineEvent } from '../../src/events/define.js';
import { auditLogVisibility } from '../../src/read/audit-log.js';
import { toAuditLogView } from '../../src/http/routes/audit-log.js';
import { auditEntityOf, auditLogProjection, auditRowOf, INTERNAL_EVENT_TYPES } from '../../src/projections/audit-log.js';

const ID = '0b6f1f3c-8f0e-4d1a-9a57-2f1d6c1e7a10';
const USER = '6a1c2b7e-3d4f-4e5a-8b9c-0d1e2f3a4b5c';
const PLAINTEXT = 'hunter2-client-secret';

const ProviderConfigured = defineEvent(
  'TestProviderConfigured',
  z.object({ name: z.string(), configuration: z.object({ clientId: z.string(), clientSecret: z.string().nullable() }) }),
  { secretPaths: ['configuration.clientSecret'] },
);

/** A provider event as the codec hands it over: decoded, so the secret is plaintext. */
const decoded = (
  data: Record<string, unknown> = { name: 'GitHub', configuration: { clientId: 'abc', clientSecret: PLAINTEXT } },
  actorId = USER,
): DecodedEvent => ({
  event: { type: ProviderConfigured.type, data },
  metadata: { actorId, correlationId: 'req-1', causationId: 'req-1', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
  eventId: ID,
  streamId: `auth_provider-${ID}`,
  streamRevision: 0n,
  position: 42n,
});

const issuesOf = (run: () => unknown): { code: string; fields: string[] } => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, fields: error.errors.map((e) => e.field) };
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('the entity of an audit entry', () => {
  it.each([
    [`template-${ID}`, 'template', ID],
    [`user-${ID}`, 'user', ID],
    [`session-${ID}`, 'session', ID],
    [`auth_provider-${ID}`, 'auth_provider', ID],
    [`personal_access_token-${ID}`, 'personal_access_token', ID],
  ])('is the kind and id of the stream %s', (streamId, entityType, entityId) => {
    expect(auditEntityOf(streamId, {})).toEqual({ entityType, entityId });
  });

  it('is the signed-in user for a sign-in stream', () => {
    expect(auditEntityOf('signin-2026-01-01', { userId: USER, method: 'github' })).toEqual({ entityType: 'sign_in', entityId: USER });
  });

  it('has no id for a sign-in that names no user', () => {
    expect(auditEntityOf('signin-2026-01-01', { reason: 'unknown account' })).toEqual({ entityType: 'sign_in', entityId: null });
    expect(auditEntityOf('signin-2026-01-01', { userId: null })).toEqual({ entityType: 'sign_in', entityId: null });
  });

  it('is the whole stream id, without an id, for a stream of another shape', () => {
    expect(auditEntityOf('maintenance', {})).toEqual({ entityType: 'maintenance', entityId: null });
  });
});

describe('an audit row', () => {
  it('redacts every secret path of the definition and never holds the plaintext', () => {
    const row = auditRowOf(decoded(), ProviderConfigured);
    expect(row.changes).toEqual({ name: 'GitHub', configuration: { clientId: 'abc', clientSecret: '********' } });
    expect(JSON.stringify(row)).not.toContain(PLAINTEXT);
  });

  it('keeps an absent secret null instead of masking it', () => {
    const row = auditRowOf(decoded({ name: 'GitHub', configuration: { clientId: 'abc', clientSecret: null } }), ProviderConfigured);
    expect(row.changes).toEqual({ name: 'GitHub', configuration: { clientId: 'abc', clientSecret: null } });
  });

  it('carries the event id, position, time, actor, action, entity and correlation', () => {
    expect(auditRowOf(decoded(), ProviderConfigured)).toMatchObject({
      id: ID,
      position: '42',
      at: '2026-01-01T00:00:00.000Z',
      actor_id: USER,
      action: 'TestProviderConfigured',
      entity_type: 'auth_provider',
      entity_id: ID,
      correlation_id: 'req-1',
      causation_id: 'req-1',
      stream_id: `auth_provider-${ID}`,
    });
  });

  it('has no actor when the event was written by something other than a user', () => {
    expect(auditRowOf(decoded(undefined, 'system'), ProviderConfigured).actor_id).toBeNull();
  });

  it('is refused without the event definition, whose secret paths it needs', () => {
    expect(() => auditRowOf(decoded(), undefined)).toThrow(
      new TypeError('no event definition for TestProviderConfigured: cannot redact its secrets'),
    );
  });
});

describe('the audit log projection', () => {
  it('handles every event type of the catalog except reservations and references', () => {
    const expected = allEventDefinitions.map((d) => d.type).filter((type) => !INTERNAL_EVENT_TYPES.has(type));
    expect([...auditLogProjection.handles].sort()).toEqual(expected.sort());
    expect(auditLogProjection.handles.has('TemplateCreated')).toBe(true);
    expect([...INTERNAL_EVENT_TYPES].sort()).toEqual([
      'ReferenceAdded',
      'ReferenceRemoved',
      'ReferencesCompacted',
      'UniqueValueReleased',
      'UniqueValueReserved',
    ]);
    for (const internal of INTERNAL_EVENT_TYPES) expect(auditLogProjection.handles.has(internal)).toBe(false);
  });
});

describe('the audit log list', () => {
  it('accepts a filter on every declared field and q', () => {
    const filter = {
      id: ID,
      at__gte: '2026-01-01T00:00:00Z',
      actorId: USER,
      action: 'TemplateCreated',
      entityType: 'template',
      entity_id: ID,
      correlationId: 'req-1',
      position__gt: 10,
      q: 'Template',
    };
    expect(parseListQuery(spec, { filter: JSON.stringify(filter) }).conditions).toHaveLength(9);
  });

  it('sorts newest first by default', () => {
    expect(parseListQuery(spec, {}).sort).toEqual({ field: 'at', column: 'at', direction: 'DESC' });
  });

  it('sorts by position when asked', () => {
    expect(parseListQuery(spec, { sort: '["position","ASC"]' }).sort).toEqual({ field: 'position', column: 'position', direction: 'ASC' });
  });

  it('refuses unknown filter fields and the unfilterable changes, naming each', () => {
    const filter = JSON.stringify({ changes: 'x', secret: 'y' });
    expect(issuesOf(() => parseListQuery(spec, { filter }))).toEqual({ code: 'VALIDATION', fields: ['filter.changes', 'filter.secret'] });
  });

  it('refuses a position that is not a whole number', () => {
    const query: ListQuery = parseListQuery(spec, { filter: '{"position__in":[1, 2.5]}' });
    expect(issuesOf(() => ensureWholePositions(query))).toEqual({ code: 'VALIDATION', fields: ['filter.position'] });
    expect(() => ensureWholePositions(parseListQuery(spec, { filter: '{"position__gte":3000000000}' }))).not.toThrow();
  });
});

describe('who reads which audit entries', () => {
  it('lets super read the whole log', () => {
    expect(auditLogVisibility(effectivePermissions(['super'], []))).toEqual({ all: true });
  });

  it('lets a grant of audit_log:read read the whole log', () => {
    expect(auditLogVisibility(['audit_log:read'])).toEqual({ all: true });
  });

  it('lets the default role read the entries of every catalog kind and of teams, and nothing else', () => {
    expect(auditLogVisibility(effectivePermissions(['default'], []))).toEqual({ all: false, entityTypes: [...ENTITY_RESOURCES, 'team'] });
  });

  it('limits a caller with one grant to that kind', () => {
    expect(auditLogVisibility(['template:write'])).toEqual({ all: false, entityTypes: ['template'] });
  });

  it('shows nothing to a caller who may read no entity', () => {
    expect(auditLogVisibility([])).toEqual({ all: false, entityTypes: [] });
  });
});

describe('an audit entry in the API', () => {
  it('is camelCase with an ISO time and a numeric position', () => {
    const view = toAuditLogView({
      id: ID,
      at: new Date('2026-01-01T00:00:00Z'),
      actor_id: USER,
      actor_name: 'Jane',
      action: 'TemplateCreated',
      verb: 'created',
      entity_type: 'template',
      entity_id: ID,
      entity_name: 'Web',
      diff: [{ field: 'name', after: 'Web' }],
      reason: null,
      changes: { name: 'Web' },
      correlation_id: 'req-1',
      causation_id: null,
      position: '7',
    });
    expect(view).toEqual({
      id: ID,
      at: '2026-01-01T00:00:00.000Z',
      actorId: USER,
      actorName: 'Jane',
      action: 'TemplateCreated',
      verb: 'created',
      entityType: 'template',
      entityId: ID,
      entityName: 'Web',
      diff: [{ field: 'name', after: 'Web' }],
      reason: null,
      changes: { name: 'Web' },
      correlationId: 'req-1',
      causationId: null,
      position: 7,
    });
  });
});
