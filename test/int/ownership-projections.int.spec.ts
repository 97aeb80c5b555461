import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessAggregate } from '../../src/commands/access.js';
import { executeCommand } from '../../src/commands/handler.js';
import { teamAggregate } from '../../src/commands/team.js';
import { entityGrantsProjection } from '../../src/projections/entity-grants.js';
import { applyEvents } from '../../src/projections/runner.js';
import { withTransaction } from '../../src/storage/pool.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';
import { teamEntity } from '../../src/model/team.js';
import { projectionOf } from '../../src/projections/declared.js';

const teamsProjection = projectionOf(teamEntity);

const context = () => ({ actorId: null, correlationId: randomUUID(), causationId: null, now: new Date('2024-01-01T00:00:00.000Z') });

/** The teams and entity-grants read models (docs/decisions/0014), projected twice from one history. */
for (const target of databaseTargets()) {
  describe(`teams and grants projections on ${target.name}`, () => {
    let spine: Spine;
    beforeEach(async () => {
      spine = await openSpine(target);
    });
    afterEach(async () => spine.close());

    it('leave their tables as one application does when the same events are applied twice', async () => {
      const team = randomUUID();
      const other = randomUUID();
      for (const [id, name] of [
        [team, 'payments'],
        [other, 'search'],
      ] as const) {
        await executeCommand(
          spine.deps,
          teamAggregate,
          id,
          {
            type: 'Create',
            data: {
              id,
              name,
              description: '',
              labels: [],
              memberIds: [],
              leadIds: [],
              groupReferences: ['group:default/' + name],
              allowSelfApproval: false,
              status: 'enabled',
            },
          },
          context(),
        );
      }
      await executeCommand(
        spine.deps,
        teamAggregate,
        team,
        { type: 'Update', data: { changes: { name: 'card payments', groupReferences: [] } } },
        context(),
      );
      const entity = randomUUID();
      const grant = (subjectId: string, level: 'read' | 'write' | 'admin') =>
        executeCommand(
          spine.deps,
          accessAggregate,
          entity,
          { type: 'Grant', data: { entityKind: 'template', entityId: entity, subjectType: 'team', subjectId, level } },
          context(),
        );
      await grant(team, 'read');
      await grant(team, 'admin');
      await grant(other, 'write');
      await executeCommand(
        spine.deps,
        accessAggregate,
        entity,
        { type: 'Revoke', data: { entityKind: 'template', entityId: entity, subjectType: 'team', subjectId: other } },
        context(),
      );
      await executeCommand(spine.deps, teamAggregate, other, { type: 'Delete' }, context());

      const events = await readAllCommitted(spine.store, { limit: 10_000 });
      const tables = [...teamsProjection.tables, ...entityGrantsProjection.tables];
      for (const projection of [teamsProjection, entityGrantsProjection])
        await withTransaction(spine.pool, (tx) => applyEvents(tx, projection, spine.codec, events));
      const once = await dumpTables(spine.pool, tables);
      for (const projection of [teamsProjection, entityGrantsProjection])
        await withTransaction(spine.pool, (tx) => applyEvents(tx, projection, spine.codec, events));
      expect(await dumpTables(spine.pool, tables)).toEqual(once);
      expect(once.entity_grants).toEqual([
        expect.objectContaining({ entity_id: entity, subject_type: 'team', subject_id: team, level: 'admin' }),
      ]);
      expect(
        ((once.teams ?? []) as Record<string, unknown>[]).map((row) => [row.name, row.group_references, row.deleted_at === null]),
      ).toEqual(
        expect.arrayContaining([
          ['card payments', [], true],
          ['search', ['group:default/search'], false],
        ]),
      );
    });
  });
}
