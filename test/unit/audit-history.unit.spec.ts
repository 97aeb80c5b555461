import { describe, expect, it } from 'vitest';
import { allEventDefinitions } from '../../src/events/catalog.js';
import { auditCsvLine, AUDIT_CSV_HEADER, type AuditLogView } from '../../src/http/routes/audit-log.js';
import { csvCell, csvLine, preferredType } from '../../src/http/csv.js';
import {
  diffFields,
  diffText,
  historyStep,
  LIFECYCLE_VERBS,
  nameOf,
  sameJson,
  tracksFields,
  verbOf,
} from '../../src/projections/audit-history.js';
import { INTERNAL_EVENT_TYPES } from '../../src/projections/audit-log.js';
import { LIFECYCLE_ACTIONS } from '../../src/model/lifecycle.js';

const PLAIN_VERBS = new Set([
  'created',
  'updated',
  'enabled',
  'disabled',
  'deleted',
  'revoked',
  'deactivated',
  'reactivated',
  'password_changed',
  'password_rehashed',
  'sessions_revoked',
  'session_started',
  'session_refreshed',
  'session_ended',
  'signed_in',
  'sign_in_failed',
  'sso_login_started',
  'sso_login_completed',
  'groups_changed',
  'access_granted',
  'access_revoked',
  'starred',
  'unstarred',
]);

describe('the verb of an audit entry', () => {
  it('is a plain past-tense word for every audited event type, never the snake_case fallback', () => {
    for (const definition of allEventDefinitions) {
      if (INTERNAL_EVENT_TYPES.has(definition.type) || definition.type.endsWith('Transitioned')) continue;
      expect(PLAIN_VERBS, definition.type).toContain(verbOf(definition.type, {}));
    }
  });

  it('says what a lifecycle transition did, by its action', () => {
    expect(verbOf('ResourceTransitioned', { action: 'approve' })).toBe('approved');
    expect(verbOf('ResourceTransitioned', { action: 'reject' })).toBe('rejected');
    expect(verbOf('ExecutorTransitioned', { action: 'execute' })).toBe('executed');
    expect(verbOf('StorageTransitioned', { action: 'destroy' })).toBe('destroy_requested');
    expect(Object.keys(LIFECYCLE_VERBS).sort()).toEqual([...LIFECYCLE_ACTIONS].sort());
  });

  it('falls back to the event type in snake_case for a type no rule knows', () => {
    expect(verbOf('TestSecretSet', {})).toBe('test_secret_set');
    expect(verbOf('ResourceTransitioned', { action: 'teleport' })).toBe('resource_transitioned');
  });
});

describe('the diff of an event', () => {
  it('lists a new entity’s fields as values without a before, leaving out empty defaults', () => {
    expect(
      diffFields(undefined, { id: 'x', name: 'Web', labels: [], description: '', documentationUrl: null, configuration: { size: 1 } }),
    ).toEqual([
      { field: 'configuration.size', after: 1 },
      { field: 'name', after: 'Web' },
    ]);
  });

  it('lists only the fields an update changed, one level into objects, with before and after', () => {
    const before = { name: 'Web', labels: ['web'], configuration: { size: 1, region: 'eu' } };
    expect(diffFields(before, { name: 'Web', labels: ['web', 'cdn'], configuration: { region: 'eu', size: 2 } })).toEqual([
      { field: 'configuration.size', before: 1, after: 2 },
      { field: 'labels', before: ['web'], after: ['web', 'cdn'] },
    ]);
  });

  it('shows a key that went away without an after', () => {
    expect(diffFields({ configuration: { a: 1, b: 2 } }, { configuration: { a: 1 } })).toEqual([{ field: 'configuration.b', before: 2 }]);
  });

  it('never lists a secret: masked on both sides, a changed one compares equal', () => {
    expect(
      diffFields(
        { configuration: { clientSecret: '********', clientId: 'a' } },
        { configuration: { clientSecret: '********', clientId: 'b' } },
      ),
    ).toEqual([{ field: 'configuration.clientId', before: 'a', after: 'b' }]);
  });

  it('compares JSON regardless of key order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
});

describe('one event in words', () => {
  it('reads an approval with a reason against the state before it', () => {
    const before = { name: 'orders-db', state: 'provision', status: 'approval_pending' };
    const step = historyStep(
      'ResourceTransitioned',
      { action: 'approve', state: 'provision', status: 'ready', reason: 'sized for Q3' },
      before,
      true,
    );
    expect(step).toEqual({
      verb: 'approved',
      diff: [{ field: 'status', before: 'approval_pending', after: 'ready' }],
      reason: 'sized for Q3',
      fields: { name: 'orders-db', state: 'provision', status: 'ready' },
      name: 'orders-db',
    });
  });

  it('reads an update’s changes and keeps the new name', () => {
    const step = historyStep('TemplateUpdated', { changes: { name: 'Web site' } }, { name: 'Web', status: 'enabled' }, true);
    expect(step.diff).toEqual([{ field: 'name', before: 'Web', after: 'Web site' }]);
    expect(step.name).toBe('Web site');
  });

  it('reads enable and disable as the status (catalog) or the enabled flag (auth providers) they set', () => {
    expect(historyStep('TemplateDisabled', {}, { status: 'enabled' }, true).diff).toEqual([
      { field: 'status', before: 'enabled', after: 'disabled' },
    ]);
    expect(historyStep('AuthProviderDisabled', {}, { enabled: true }, true).diff).toEqual([
      { field: 'enabled', before: true, after: false },
    ]);
    expect(historyStep('UserDeactivated', {}, { deactivated: false }, true).diff).toEqual([
      { field: 'deactivated', before: false, after: true },
    ]);
  });

  it('keeps the name of a deleted entity', () => {
    expect(historyStep('TemplateDeleted', {}, { name: 'Web' }, true)).toMatchObject({ verb: 'deleted', diff: [], name: 'Web' });
  });

  it('shows a sign-in as the facts it carries, named by the identifier typed', () => {
    const step = historyStep(
      'SignInFailed',
      { userId: null, method: 'service_account', provider: null, identifier: 'admin', reason: 'wrong password' },
      undefined,
      false,
    );
    expect(step).toEqual({
      verb: 'sign_in_failed',
      diff: [
        { field: 'identifier', after: 'admin' },
        { field: 'method', after: 'service_account' },
      ],
      reason: 'wrong password',
      fields: undefined,
      name: 'admin',
    });
    expect(tracksFields('sign_in', 'u')).toBe(false);
    expect(tracksFields('template', null)).toBe(false);
    expect(tracksFields('template', 'u')).toBe(true);
  });

  it('names entities by name, display name, identifier or URL', () => {
    expect(nameOf({ displayName: 'Jane', identifier: 'jane@example.com' })).toBe('Jane');
    expect(nameOf({ displayName: null, identifier: 'ci-bot' })).toBe('ci-bot');
    expect(nameOf({ sourceCodeUrl: 'https://git.example/x.git' })).toBe('https://git.example/x.git');
    expect(nameOf({})).toBeNull();
  });

  it('writes a diff as one line, long values cut', () => {
    expect(
      diffText([
        { field: 'status', before: 'approval_pending', after: 'ready' },
        { field: 'labels', after: ['web'] },
        { field: 'configuration.b', before: 2 },
      ]),
    ).toBe('status: approval_pending → ready; labels: ["web"]; configuration.b: 2 → (removed)');
    expect(diffText([{ field: 'description', after: 'x'.repeat(200) }])).toBe(`description: ${'x'.repeat(79)}…`);
  });
});

describe('the CSV export', () => {
  it('quotes what needs quoting and defuses cells that a spreadsheet would run as formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\nbye')).toBe('"say ""hi""\nbye"');
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    for (const start of ['+', '-', '@', '\t']) expect(csvCell(`${start}1`)).toBe(`'${start}1`);
    expect(csvCell(null)).toBe('');
    expect(csvCell(-3)).toBe('-3');
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n');
  });

  it('writes one line per entry in the header’s columns', () => {
    const view: AuditLogView = {
      id: 'e',
      at: '2026-01-01T00:00:00.000Z',
      actorId: 'u',
      actorName: 'Platform Bot',
      action: 'ResourceTransitioned',
      verb: 'approved',
      entityType: 'resource',
      entityId: 'r',
      entityName: 'orders-db',
      diff: [{ field: 'status', before: 'approval_pending', after: 'ready' }],
      reason: 'ok, sized for Q3',
      changes: {},
      correlationId: 'req-1',
      causationId: null,
      position: 12,
    };
    expect(AUDIT_CSV_HEADER).toHaveLength(12);
    expect(auditCsvLine(view)).toBe(
      '2026-01-01T00:00:00.000Z,Platform Bot,u,approved,ResourceTransitioned,resource,orders-db,r,status: approval_pending → ' +
        'ready,"ok, sized for Q3",req-1,12\r\n',
    );
  });

  it('is chosen by Accept, JSON staying the default', () => {
    const offered = ['application/json', 'text/csv'] as const;
    expect(preferredType(undefined, offered)).toBe('application/json');
    expect(preferredType('*/*', offered)).toBe('application/json');
    expect(preferredType('text/csv', offered)).toBe('text/csv');
    expect(preferredType('text/*', offered)).toBe('text/csv');
    expect(preferredType('application/json, text/csv;q=0.5', offered)).toBe('application/json');
    expect(preferredType('application/json;q=0.2, text/csv', offered)).toBe('text/csv');
    expect(preferredType('text/html', offered)).toBe('application/json');
  });
});
