import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand, unwritten, type CommandDeps } from '../../src/commands/handler.js';
import { referenceStreamId } from '../../src/commands/references.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import { uniqueStreamId } from '../../src/commands/unique.js';
import { StreamRevisionConflictError, type EventStore } from '../../src/events/store/port.js';
import { databaseTargets } from '../support/databases.js';
import { openSpine, type Spine } from '../support/spine.js';

const context = () => ({ actorId: null, correlationId: randomUUID(), causationId: null, now: new Date('2026-01-01T00:00:00Z') });

const create = (id: string, name: string, parentIds: string[] = []): TemplateCommand => ({
  type: 'Create',
  data: {
    id,
    name,
    template: name.toLowerCase().replaceAll(/[^a-z0-9]/g, '_'),
    description: '',
    labels: [],
    abstract: false,
    cloudResourceTypes: [],
    configuration: {},
    documentationUrl: null,
    executorIds: [],
    parentIds,
    ownerId: null,
    status: 'enabled',
  },
});

/** A template create with a slug of its own (not derived from the name). */
const createWithSlug = (id: string, name: string, slug: string): TemplateCommand => {
  const command = create(id, name);
  return command.type === 'Create' ? { ...command, data: { ...command.data, template: slug } } : command;
};

/**
 * The store, recording what the handler asks of it: the streams it reads (one by one or together)
 * and the outcome of each multi-stream append ('ok', or the stream a revision conflict names).
 */
function observed(store: EventStore) {
  const reads: string[] = [];
  const appends: string[] = [];
  const wrapped: EventStore = {
    ...store,
    readStream: (streamId) => (reads.push(streamId), store.readStream(streamId)),
    readStreams: (streamIds) => (reads.push(...streamIds), store.readStreams(streamIds)),
    appendMany: async (writes) => {
      try {
        const result = await store.appendMany(writes);
        appends.push('ok');
        return result;
      } catch (error) {
        appends.push(error instanceof StreamRevisionConflictError ? `conflict on ${error.streamId}` : 'error');
        throw error;
      }
    },
  };
  return { reads, appends, store: wrapped, reservationReads: () => reads.filter((streamId) => streamId.startsWith('unique-')) };
}

/**
 * The PostgreSQL store presented as one that cannot append to several streams atomically (as
 * EventStoreDB), so the handler takes its ordered path with compensation. `failOwnAppend` makes the
 * next append to a template stream fail, as a crash or a lost race would.
 */
function nonAtomic(store: EventStore): EventStore & { failOwnAppend: boolean } {
  const wrapper = {
    ...store,
    atomicMultiStream: false,
    failOwnAppend: false,
    append: async (streamId: string, events: Parameters<EventStore['append']>[1], options: Parameters<EventStore['append']>[2]) => {
      if (wrapper.failOwnAppend && streamId.startsWith('template-')) {
        wrapper.failOwnAppend = false;
        throw new Error('simulated failure of the aggregate append');
      }
      return store.append(streamId, events, options);
    },
  };
  return wrapper;
}

for (const target of databaseTargets()) {
  describe(`the command handler on ${target.name}`, () => {
    let spine: Spine;
    beforeEach(async () => {
      spine = await openSpine(target);
    });
    afterEach(async () => spine.close());

    const reservationEvents = async (key: string) => (await spine.store.readStream(uniqueStreamId(key))).map((e) => e.type);

    describe('when two creates race for one name', () => {
      it('creates exactly one template and refuses the other with 409', async () => {
        const results = await Promise.allSettled([
          executeCommand(spine.deps, templateAggregate, randomUUID(), create(randomUUID(), 'Race'), context()),
          executeCommand(spine.deps, templateAggregate, randomUUID(), create(randomUUID(), 'race'), context()),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const refused = results.find((r) => r.status === 'rejected');
        // Both the name and the derived slug collide: whichever is checked first is named.
        expect(refused?.reason).toMatchObject({ code: 'NOT_UNIQUE' });
        expect(['name', 'template']).toContain((refused?.reason as { errors: { field: string }[] }).errors[0]?.field);
        expect(await reservationEvents('template-name:race')).toEqual(['UniqueValueReserved']);
      });
    });

    describe('when a parent is deleted while a child referencing it is created', () => {
      it('never lets both succeed', async () => {
        for (let round = 0; round < 5; round++) {
          const parent = randomUUID();
          await executeCommand(spine.deps, templateAggregate, parent, create(parent, `Parent ${round}`), context());
          const child = randomUUID();
          const [deleted, created] = await Promise.allSettled([
            executeCommand(spine.deps, templateAggregate, parent, { type: 'Delete' }, context()),
            executeCommand(spine.deps, templateAggregate, child, create(child, `Child ${round}`, [parent]), context()),
          ]);
          expect([deleted.status, created.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
          const referrers = (await spine.store.readStream(referenceStreamId('template', parent))).map((e) => e.type);
          expect(referrers).toEqual(created.status === 'fulfilled' ? ['ReferenceAdded'] : []);
        }
      });
    });

    describe('when the store cannot append to several streams atomically', () => {
      let deps: CommandDeps;
      let store: ReturnType<typeof nonAtomic>;
      beforeEach(() => {
        store = nonAtomic(spine.store);
        deps = { ...spine.deps, store };
      });

      it('creates, renames and deletes with reservations following', async () => {
        const id = randomUUID();
        await executeCommand(deps, templateAggregate, id, create(id, 'Ordered'), context());
        await executeCommand(deps, templateAggregate, id, { type: 'Update', data: { changes: { name: 'Renamed' } } }, context());
        expect(await reservationEvents('template-name:ordered')).toEqual(['UniqueValueReserved', 'UniqueValueReleased']);
        expect(await reservationEvents('template-name:renamed')).toEqual(['UniqueValueReserved']);
        await executeCommand(deps, templateAggregate, id, { type: 'Delete' }, context());
        expect(await reservationEvents('template-name:renamed')).toEqual(['UniqueValueReserved', 'UniqueValueReleased']);
      });

      it('releases the name again when the create itself fails', async () => {
        store.failOwnAppend = true;
        const id = randomUUID();
        await expect(executeCommand(deps, templateAggregate, id, create(id, 'Doomed'), context())).rejects.toThrow('simulated failure');
        expect(await reservationEvents('template-name:doomed')).toEqual(['UniqueValueReserved', 'UniqueValueReleased']);
        const again = randomUUID();
        await expect(executeCommand(deps, templateAggregate, again, create(again, 'Doomed'), context())).resolves.toMatchObject({
          revision: 0n,
        });
      });

      it('undoes the reference it recorded when the create fails', async () => {
        const parent = randomUUID();
        await executeCommand(deps, templateAggregate, parent, create(parent, 'Parent'), context());
        store.failOwnAppend = true;
        const child = randomUUID();
        await expect(executeCommand(deps, templateAggregate, child, create(child, 'Child', [parent]), context())).rejects.toThrow(
          'simulated failure',
        );
        expect((await spine.store.readStream(referenceStreamId('template', parent))).map((e) => e.type)).toEqual([
          'ReferenceAdded',
          'ReferenceRemoved',
        ]);
        await expect(executeCommand(deps, templateAggregate, parent, { type: 'Delete' }, context())).resolves.toBeDefined();
      });
    });

    describe('when a command takes unique values, on its first attempt', () => {
      const reservations = async (key: string) =>
        (await spine.store.readStream(uniqueStreamId(key))).map((e) => ({
          type: e.type,
          revision: e.streamRevision,
          owner: (e.data as { ownerStreamId: string }).ownerStreamId,
        }));

      it('creates with fresh values without reading their reservation streams', async () => {
        const { reservationReads, appends, store } = observed(spine.store);
        const id = randomUUID();

        const created = await executeCommand({ ...spine.deps, store }, templateAggregate, id, create(id, 'Fresh'), context());

        expect(created.revision).toBe(0n);
        expect(reservationReads()).toEqual([]);
        expect(appends).toEqual(['ok']);
        const owner = templateAggregate.streamId(id);
        expect(await reservations('template-name:fresh')).toEqual([{ type: 'UniqueValueReserved', revision: 0n, owner }]);
        expect(await reservations('template-slug:fresh')).toEqual([{ type: 'UniqueValueReserved', revision: 0n, owner }]);
      });

      it('refuses a name another template holds with the same 409 as a command that reads first', async () => {
        const holder = randomUUID();
        await executeCommand(spine.deps, templateAggregate, holder, create(holder, 'Held'), context());
        const { reservationReads, appends, store } = observed(spine.store);
        const id = randomUUID();

        const refused = await executeCommand(
          { ...spine.deps, store },
          templateAggregate,
          id,
          createWithSlug(id, 'held', 'other_slug'),
          context(),
        ).catch((error: unknown) => error);

        const message = 'a template named "held" already exists';
        expect(refused).toMatchObject({ code: 'NOT_UNIQUE', message, errors: [{ field: 'name', message }] });
        // A single attempt (maxAttempts 1) does not assume: it reads first and answers as before the change.
        const readFirst = await executeCommand(
          { ...spine.deps, maxAttempts: 1 },
          templateAggregate,
          id,
          createWithSlug(id, 'held', 'other_slug'),
          context(),
        ).catch((error: unknown) => error);
        expect(readFirst).toMatchObject({ code: 'NOT_UNIQUE', message, errors: [{ field: 'name', message }] });
        // The first attempt's append failed on the reservation; the second read it and refused.
        expect(appends).toEqual([`conflict on ${uniqueStreamId('template-name:held')}`]);
        expect(reservationReads()).toContain(uniqueStreamId('template-name:held'));
        expect(await reservations('template-name:held')).toEqual([
          { type: 'UniqueValueReserved', revision: 0n, owner: templateAggregate.streamId(holder) },
        ]);
        expect(await reservations('template-slug:other_slug')).toEqual([]);
        expect(await spine.store.readStream(templateAggregate.streamId(id))).toEqual([]);
      });

      it('reserves a name released by a rename at the stream revision, after one conflict', async () => {
        const holder = randomUUID();
        await executeCommand(spine.deps, templateAggregate, holder, create(holder, 'Old'), context());
        await executeCommand(spine.deps, templateAggregate, holder, { type: 'Update', data: { changes: { name: 'New' } } }, context());
        const { appends, store } = observed(spine.store);
        const id = randomUUID();

        const created = await executeCommand(
          { ...spine.deps, store },
          templateAggregate,
          id,
          createWithSlug(id, 'Old', 'old_again'),
          context(),
        );

        expect(created.revision).toBe(0n);
        expect(appends).toEqual([`conflict on ${uniqueStreamId('template-name:old')}`, 'ok']);
        expect((await reservations('template-name:old')).map((r) => [r.type, r.revision, r.owner])).toEqual([
          ['UniqueValueReserved', 0n, templateAggregate.streamId(holder)],
          ['UniqueValueReleased', 1n, templateAggregate.streamId(holder)],
          ['UniqueValueReserved', 2n, templateAggregate.streamId(id)],
        ]);
      });

      it('reserves a name and slug released by a delete, after one conflict', async () => {
        const holder = randomUUID();
        await executeCommand(spine.deps, templateAggregate, holder, create(holder, 'Gone'), context());
        await executeCommand(spine.deps, templateAggregate, holder, { type: 'Delete' }, context());
        const { appends, store } = observed(spine.store);
        const id = randomUUID();

        await executeCommand({ ...spine.deps, store }, templateAggregate, id, create(id, 'Gone'), context());

        expect(appends).toHaveLength(2);
        expect(appends[0]).toMatch(/^conflict on unique-template-(name|slug):gone$/);
        expect(appends[1]).toBe('ok');
        for (const key of ['template-name:gone', 'template-slug:gone']) {
          expect((await reservations(key)).at(-1)).toEqual({
            type: 'UniqueValueReserved',
            revision: 2n,
            owner: templateAggregate.streamId(id),
          });
        }
      });

      it('reads the reservations when an update changes a unique value (the old one is released at its revision)', async () => {
        const id = randomUUID();
        await executeCommand(spine.deps, templateAggregate, id, create(id, 'Before'), context());
        const { reservationReads, appends, store } = observed(spine.store);

        const renamed = await executeCommand(
          { ...spine.deps, store },
          templateAggregate,
          id,
          { type: 'Update', data: { changes: { name: 'After' } } },
          context(),
        );

        expect(renamed.revision).toBe(1n);
        expect(reservationReads().sort()).toEqual([uniqueStreamId('template-name:after'), uniqueStreamId('template-name:before')]);
        expect(appends).toEqual(['ok']);
        expect((await reservations('template-name:before')).map((r) => r.type)).toEqual(['UniqueValueReserved', 'UniqueValueReleased']);
        expect((await reservations('template-name:after')).map((r) => r.type)).toEqual(['UniqueValueReserved']);
      });

      it('reads them as before on a store without atomic appends, writing nothing for a refused create', async () => {
        const holder = randomUUID();
        await executeCommand(spine.deps, templateAggregate, holder, create(holder, 'Ordered held'), context());
        const { reservationReads, store } = observed(nonAtomic(spine.store));
        const deps = { ...spine.deps, store };

        const id = randomUUID();
        await executeCommand(deps, templateAggregate, id, create(id, 'Ordered fresh'), context());
        expect(reservationReads().sort()).toEqual([
          uniqueStreamId('template-name:ordered fresh'),
          uniqueStreamId('template-slug:ordered_fresh'),
        ]);

        // The name is fresh, the slug is not: the name is not reserved and undone on the way to the 409.
        const other = randomUUID();
        await expect(
          executeCommand(deps, templateAggregate, other, createWithSlug(other, 'Ordered other', 'ordered_held'), context()),
        ).rejects.toMatchObject({
          code: 'NOT_UNIQUE',
          errors: [{ field: 'template' }],
        });
        expect(await reservations('template-name:ordered other')).toEqual([]);
      });
    });

    describe('when the caller passes the state it knows (known)', () => {
      /** The store, counting the streams read one by one. */
      const counting = (store: EventStore) => {
        const reads: string[] = [];
        return { reads, store: { ...store, readStream: (streamId: string) => (reads.push(streamId), store.readStream(streamId)) } };
      };

      it('decides on it without reading its own stream', async () => {
        const id = randomUUID();
        const { reads, store } = counting(spine.store);
        const deps = { ...spine.deps, store };
        const created = await executeCommand(deps, templateAggregate, id, create(id, 'Known'), {
          ...context(),
          known: unwritten(templateAggregate),
        });
        await executeCommand(deps, templateAggregate, id, { type: 'Disable' }, { ...context(), known: created });
        expect(reads.filter((streamId) => streamId === templateAggregate.streamId(id))).toEqual([]);
        expect((await spine.store.readStream(templateAggregate.streamId(id))).map((e) => e.type)).toEqual([
          'TemplateCreated',
          'TemplateDisabled',
        ]);
      });

      it('reads the stream and decides again when the known state is stale', async () => {
        const id = randomUUID();
        const created = await executeCommand(spine.deps, templateAggregate, id, create(id, 'Stale'), context());
        await executeCommand(spine.deps, templateAggregate, id, { type: 'Disable' }, context());
        // Decided on the stale state (enabled) this would disable again; on the stored one it enables.
        const result = await executeCommand(spine.deps, templateAggregate, id, { type: 'Enable' }, { ...context(), known: created });
        expect(result.revision).toBe(2n);
        expect(result.state).toMatchObject({ status: 'active', enabled: 'enabled' });
        expect((await spine.store.readStream(templateAggregate.streamId(id))).map((e) => e.type)).toEqual([
          'TemplateCreated',
          'TemplateDisabled',
          'TemplateEnabled',
        ]);
      });

      it('refuses a create under an id that exists, as without it', async () => {
        const id = randomUUID();
        await executeCommand(spine.deps, templateAggregate, id, create(id, 'Taken id'), context());
        await expect(
          executeCommand(spine.deps, templateAggregate, id, create(id, 'Other name'), {
            ...context(),
            known: unwritten(templateAggregate),
          }),
        ).rejects.toMatchObject({
          code: 'ALREADY_EXISTS',
        });
      });
    });
  });
}
