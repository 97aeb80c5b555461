import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/commands/handler.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { auditLogProjection } from '../../src/projections/audit-log.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { applyEvents } from '../../src/projections/runner.js';
import { withTransaction } from '../../src/storage/pool.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';

const ACTOR = randomUUID();
const NOW = new Date('2026-01-01T00:00:00Z');

const create = (id: string, name: string): Extract<TemplateCommand, { type: 'Create' }> => ({
  type: 'Create',
  data: {
    id,
    name,
    template: `t_${id.slice(0, 8)}`,
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

interface Entry {
  verb: string;
  entity_name: string | null;
  diff: unknown;
  reason: string | null;
}

for (const target of databaseTargets()) {
  describe(`the audit log in words on ${target.name}`, () => {
    let spine: Spine;
    let events: RecordedEvent[];
    const web = randomUUID();
    const other = randomUUID();

    /** Applies `batches` (slices of the recorded events) as the runner would, one transaction each. */
    const project = async (batches: readonly RecordedEvent[][] = [events]) => {
      for (const batch of batches) await withTransaction(spine.pool, (tx) => applyEvents(tx, auditLogProjection, spine.codec, batch));
    };
    const entries = async (entityId: string): Promise<Entry[]> =>
      (
        await spine.pool.query<Entry>('SELECT verb, entity_name, diff, reason FROM audit_log WHERE entity_id = $1 ORDER BY position', [
          entityId,
        ])
      ).rows;

    beforeAll(async () => {
      spine = await openSpine(target);
      const context = { actorId: ACTOR, correlationId: 'req-history', causationId: null, now: NOW };
      const run = (id: string, command: TemplateCommand) => executeCommand(spine.deps, templateAggregate, id, command, context);
      await run(web, create(web, 'Web app'));
      await run(other, create(other, 'Other'));
      await run(web, { type: 'Update', data: { changes: { description: 'Static site', configuration: { size: 2 } } } });
      await run(web, { type: 'Update', data: { changes: { name: 'Web site' } } });
      await run(web, { type: 'Disable' });
      await run(web, { type: 'Delete' });
      events = await readAllCommitted(spine.store, { limit: 1000 });
    });
    beforeEach(async () => {
      await spine.pool.query('TRUNCATE audit_log, audit_entities');
    });
    afterAll(async () => spine.close());

    describe('when an entity is created, changed, renamed, disabled and deleted', () => {
      it('says each step as a verb with the fields it changed, before → after', async () => {
        await project();
        expect(await entries(web)).toEqual([
          {
            verb: 'created',
            entity_name: 'Web site',
            diff: [
              { field: 'abstract', after: false },
              { field: 'configuration.size', after: 1 },
              { field: 'labels', after: ['web'] },
              { field: 'name', after: 'Web app' },
              { field: 'status', after: 'enabled' },
              { field: 'template', after: `t_${web.slice(0, 8)}` },
            ],
            reason: null,
          },
          {
            verb: 'updated',
            entity_name: 'Web site',
            diff: [
              { field: 'configuration.size', before: 1, after: 2 },
              { field: 'description', before: '', after: 'Static site' },
            ],
            reason: null,
          },
          { verb: 'updated', entity_name: 'Web site', diff: [{ field: 'name', before: 'Web app', after: 'Web site' }], reason: null },
          { verb: 'disabled', entity_name: 'Web site', diff: [{ field: 'status', before: 'enabled', after: 'disabled' }], reason: null },
          { verb: 'deleted', entity_name: 'Web site', diff: [], reason: null },
        ]);
        // The other entity keeps its own name.
        expect((await entries(other)).map((e) => e.entity_name)).toEqual(['Other']);
      });

      it('renames the earlier entries of an entity when the rename comes in a later batch', async () => {
        const renameAt = events.findIndex(
          (e) => e.type === 'TemplateUpdated' && (e.data as { changes: { name?: string } }).changes.name !== undefined,
        );
        await project([events.slice(0, renameAt), events.slice(renameAt)]);
        expect((await entries(web)).map((e) => e.entity_name)).toEqual(['Web site', 'Web site', 'Web site', 'Web site', 'Web site']);
        // Batches or not, the same rows.
        const split = await dumpTables(spine.pool, auditLogProjection.tables);
        await spine.pool.query('TRUNCATE audit_log, audit_entities');
        await project();
        expect(await dumpTables(spine.pool, auditLogProjection.tables)).toEqual(split);
      });

      it('remembers each entity’s fields, redacted, as of its last event', async () => {
        await project();
        const { rows } = await spine.pool.query<{ name: string; fields: Record<string, unknown>; position: string }>(
          'SELECT name, fields, position FROM audit_entities WHERE entity_id = $1',
          [web],
        );
        expect(rows).toEqual([
          {
            name: 'Web site',
            fields: expect.objectContaining({ name: 'Web site', status: 'disabled', description: 'Static site' }) as unknown,
            position: String(events.filter((e) => e.streamId === `template-${web}`).at(-1)?.position),
          },
        ]);
      });
    });

    describe('when the same events are applied twice, in other batches', () => {
      it('leaves both tables exactly as one pass did', async () => {
        await project();
        const once = await dumpTables(spine.pool, auditLogProjection.tables);
        await project(events.map((e) => [e]));
        await project([events.slice(0, 3), events.slice(3)]);
        expect(await dumpTables(spine.pool, auditLogProjection.tables)).toEqual(once);
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
  });
}
