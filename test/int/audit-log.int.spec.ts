import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { executeCommand } from '../../src/commands/handler.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import { withTransaction } from '../../src/storage/pool.js';
import type { DecodedEvent } from '../../src/events/codec.js';
import { defineEvent } from '../../src/events/define.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { auditLogProjection, createAuditLogProjection } from '../../src/projections/audit-log.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { writingAtOnce } from '../../src/projections/projection.js';
import { applyEvents } from '../../src/projections/runner.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';

const ACTOR = randomUUID();
const CORRELATION = 'req-audit-1';
const NOW = new Date('2026-01-01T00:00:00Z');
const PLAINTEXT = 'very-secret-client-secret';

const create = (id: string): Extract<TemplateCommand, { type: 'Create' }> => ({
  type: 'Create',
  data: {
    id,
    name: 'Web app',
    template: 'web_app',
    description: '',
    labels: ['web'],
    abstract: false,
    cloudResourceTypes: [],
    configuration: { size: 1 },
    documentationUrl: null,
    executorIds: [],
    parentIds: [],
    ownerId: null,
    status: 'enabled',
  },
});

/** Writes a template's short history through the command handler, as a request would. */
async function writeTemplateHistory(spine: Spine, id: string): Promise<void> {
  const context = { actorId: ACTOR, correlationId: CORRELATION, causationId: 'req-audit-1', now: NOW };
  await executeCommand(spine.deps, templateAggregate, id, create(id), context);
  await executeCommand(spine.deps, templateAggregate, id, { type: 'Update', data: { changes: { description: 'Static site' } } }, context);
  await executeCommand(spine.deps, templateAggregate, id, { type: 'Disable' }, { ...context, actorId: 'system' });
}

const AUDIT_COLUMNS = 'action, entity_type, entity_id, actor_id, correlation_id, causation_id, changes, stream_id';

for (const target of databaseTargets()) {
  describe(`the audit log projection on ${target.name}`, () => {
    let spine: Spine;
    let events: RecordedEvent[];
    const id = randomUUID();

    const project = () => withTransaction(spine.pool, (tx) => applyEvents(tx, auditLogProjection, spine.codec, events));

    // One database per target (opening one is the slow part); every test starts from an empty log.
    beforeAll(async () => {
      spine = await openSpine(target);
      await writeTemplateHistory(spine, id);
      events = await readAllCommitted(spine.store, { limit: 100 });
    });
    beforeEach(async () => {
      await spine.pool.query('TRUNCATE audit_log, audit_entities');
    });
    afterAll(async () => spine.close());

    describe('when template events are applied', () => {
      it('records one entry per event with its actor, entity, correlation and changes', async () => {
        await project();
        const { rows } = await spine.pool.query(`SELECT ${AUDIT_COLUMNS} FROM audit_log ORDER BY position`);
        const entity = {
          entity_type: 'template',
          entity_id: id,
          correlation_id: CORRELATION,
          causation_id: 'req-audit-1',
          stream_id: `template-${id}`,
        };
        expect(rows).toEqual([
          {
            ...entity,
            action: 'TemplateCreated',
            actor_id: ACTOR,
            changes: create(id).data,
          },
          { ...entity, action: 'TemplateUpdated', actor_id: ACTOR, changes: { changes: { description: 'Static site' } } },
          { ...entity, action: 'TemplateDisabled', actor_id: null, changes: {} },
        ]);
      });

      it('keys each entry by its event id, at its position and time', async () => {
        await project();
        const { rows } = await spine.pool.query<{ id: string; position: string; at: Date }>(
          'SELECT id, position, at FROM audit_log ORDER BY position',
        );
        const audited = events.filter((e) => e.type.startsWith('Template'));
        expect(rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }))).toEqual(
          audited.map((e) => ({ id: e.eventId, position: String(e.position), at: NOW.toISOString() })),
        );
      });

      it('leaves out the reservations written with them', async () => {
        expect(events.map((e) => e.type)).toContain('UniqueValueReserved');
        await project();
        const { rows } = await spine.pool.query<{ action: string }>('SELECT DISTINCT action FROM audit_log ORDER BY action');
        expect(rows.map((r) => r.action)).toEqual(['TemplateCreated', 'TemplateDisabled', 'TemplateUpdated']);
      });
    });

    describe('when the same events are applied twice', () => {
      it('leaves the rows exactly as one pass did', async () => {
        await project();
        const once = await dumpTables(spine.pool, auditLogProjection.tables);
        await project();
        expect(await dumpTables(spine.pool, auditLogProjection.tables)).toEqual(once);
        expect(once.audit_log).toHaveLength(3);
      });
    });

    describe('when it is rebuilt', () => {
      it('ends with the rows the live projection wrote', async () => {
        await project();
        const live = await dumpTables(spine.pool, auditLogProjection.tables);
        await rebuildProjection({ pool: spine.pool, store: spine.store, codec: spine.codec, log: spine.log }, auditLogProjection);
        expect(await dumpTables(spine.pool, auditLogProjection.tables)).toEqual(live);
      });
    });

    describe('when an event carries a secret', () => {
      const SecretSet = defineEvent(
        'TestSecretSet',
        z.object({ name: z.string(), configuration: z.object({ clientSecret: z.string() }) }),
        {
          secretPaths: ['configuration.clientSecret'],
        },
      );
      const projection = createAuditLogProjection(() => [SecretSet]);
      const providerId = randomUUID();
      // As the codec hands it to projections: already decrypted.
      const decoded: DecodedEvent = {
        event: { type: SecretSet.type, data: { name: 'GitHub', configuration: { clientSecret: PLAINTEXT } } },
        metadata: { actorId: ACTOR, correlationId: CORRELATION, causationId: null, occurredAt: NOW.toISOString(), schemaVersion: 1 },
        eventId: randomUUID(),
        streamId: `auth_provider-${providerId}`,
        streamRevision: 0n,
        position: 1000n,
      };

      it('stores the mask, never the plaintext', async () => {
        await withTransaction(spine.pool, (tx) => projection.applyBatch(writingAtOnce(tx), [decoded]));
        const { rows } = await spine.pool.query<{ entity_type: string; entity_id: string; changes: unknown }>(
          'SELECT entity_type, entity_id, changes FROM audit_log',
        );
        expect(rows).toEqual([
          { entity_type: 'auth_provider', entity_id: providerId, changes: { name: 'GitHub', configuration: { clientSecret: '********' } } },
        ]);
        const { rows: leaks } = await spine.pool.query('SELECT id FROM audit_log WHERE changes::text LIKE $1', [`%${PLAINTEXT}%`]);
        expect(leaks).toEqual([]);
      });
    });
  });
}
