import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/commands/handler.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { auditLogProjection } from '../../src/projections/audit-log.js';
import { writingAtOnce, type Projection } from '../../src/projections/projection.js';
import { withTransaction, type SqlClient } from '../../src/storage/pool.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';
import { templateEntity } from '../../src/model/template.js';
import { projectionOf } from '../../src/projections/declared.js';

const templatesProjection = projectionOf(templateEntity);

/*
 * A live batch reads only the rows (and audit entities) that can exist already: a row whose stream
 * begins in the batch is not looked up (src/projections/row-projection.ts, existingRowIds). The
 * tables must end exactly as when every event is applied on its own batch.
 */

const context = {
  actorId: randomUUID(),
  correlationId: 'req-new-rows',
  causationId: 'req-new-rows',
  now: new Date('2026-01-01T00:00:00Z'),
};

const create = (id: string, name: string): Extract<TemplateCommand, { type: 'Create' }> => ({
  type: 'Create',
  data: {
    id,
    name,
    template: name.replaceAll(' ', '_'),
    description: '',
    labels: [],
    abstract: false,
    cloudResourceTypes: [],
    configuration: {},
    documentationUrl: null,
    executorIds: [],
    parentIds: [],
    ownerId: null,
    status: 'enabled',
  },
});

/** Applies `events` (those the projection handles, decoded) in one transaction, recording the statements run. */
async function applyCounting(spine: Spine, projection: Projection, events: readonly RecordedEvent[]): Promise<string[]> {
  const statements: string[] = [];
  await withTransaction(spine.pool, async (tx) => {
    const counting: SqlClient = {
      query: (text, params) => {
        statements.push(text);
        return tx.query(text, params);
      },
      release: (destroy) => tx.release(destroy),
    };
    await projection.applyBatch(
      writingAtOnce(counting),
      events.filter((e) => projection.handles.has(e.type)).map((e) => spine.codec.decode(e)),
    );
  });
  return statements;
}

const TABLES = ['templates', 'audit_log', 'audit_entities'];

for (const target of databaseTargets()) {
  describe(`live batches of new rows (${target.name})`, () => {
    let spine: Spine;
    let created: RecordedEvent[];
    let updated: RecordedEvent[];
    const ids = [randomUUID(), randomUUID()];

    beforeAll(async () => {
      spine = await openSpine(target);
      for (const [i, id] of ids.entries()) await executeCommand(spine.deps, templateAggregate, id, create(id, `app ${String(i)}`), context);
      created = await readAllCommitted(spine.store, { limit: 100 });
      await executeCommand(
        spine.deps,
        templateAggregate,
        ids[0] ?? '',
        { type: 'Update', data: { changes: { name: 'app renamed' } } },
        context,
      );
      updated = (await readAllCommitted(spine.store, { after: created.at(-1)?.position, limit: 100 })).filter((e) =>
        e.streamId.startsWith('template-'),
      );
    });
    beforeEach(async () => {
      await spine.pool.query(`TRUNCATE ${TABLES.join(', ')}`);
    });
    afterAll(async () => spine.close());

    it('given a batch of creates, when the templates projection applies it, then no row is looked up', async () => {
      const statements = await applyCounting(spine, templatesProjection, created);
      expect(statements.some((text) => /^\s*SELECT/i.test(text))).toBe(false);
      expect((await spine.pool.query('SELECT id FROM templates')).rows).toHaveLength(2);
    });

    it('given a batch of creates, when the audit log applies it, then no entity is looked up, and entries and entities go in one statement', async () => {
      const statements = await applyCounting(spine, auditLogProjection, created);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/^WITH entries AS \(INSERT INTO audit_log/);
      expect((await spine.pool.query('SELECT id FROM audit_log')).rows).toHaveLength(2);
    });

    it('given a batch that changes an existing row, when both projections apply it, then only that row is looked up', async () => {
      await applyCounting(spine, templatesProjection, created);
      await applyCounting(spine, auditLogProjection, created);
      const rows = await applyCounting(spine, templatesProjection, updated);
      const audit = await applyCounting(spine, auditLogProjection, updated);
      expect(rows.filter((text) => /^\s*SELECT/i.test(text))).toHaveLength(1);
      expect(audit.filter((text) => /^\s*SELECT/i.test(text))).toHaveLength(1);
      expect((await spine.pool.query<{ name: string }>('SELECT name FROM templates WHERE id = $1', [ids[0]])).rows[0]?.name).toBe(
        'app renamed',
      );
    });

    it('given a batch holding a create and its update, when it is applied at once, then the tables equal those of one batch per event', async () => {
      for (const event of [...created, ...updated]) {
        await applyCounting(spine, templatesProjection, [event]);
        await applyCounting(spine, auditLogProjection, [event]);
      }
      const oneByOne = await dumpTables(spine.pool, TABLES);
      await spine.pool.query(`TRUNCATE ${TABLES.join(', ')}`);
      await applyCounting(spine, templatesProjection, [...created, ...updated]);
      await applyCounting(spine, auditLogProjection, [...created, ...updated]);
      expect(await dumpTables(spine.pool, TABLES)).toEqual(oneByOne);
    });
  });
}
