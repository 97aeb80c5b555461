import { randomUUID } from 'node:crypto';
import { executeCommand } from '../../src/commands/handler.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import type { SqlPool } from '../../src/storage/pool.js';
import { interceptClients } from './client-hook.js';
import type { Spine } from './spine.js';

/** The clock of written histories: one second per command from here. */
export const FIXED_START = Date.parse('2026-01-01T00:00:00Z');

/** The metadata of an event appended around the codec (a poison event, one at an older schema version): system actor, FIXED_START. */
export const rawMetadata = (schemaVersion = 1) => ({
  actorId: null,
  correlationId: 'c',
  causationId: null,
  occurredAt: new Date(FIXED_START).toISOString(),
  schemaVersion,
});

/**
 * Text that the ways rows reach PostgreSQL must carry unchanged: quotes, backslashes, the characters
 * of array and record literals, JSON escapes and characters beyond ASCII.
 */
export const AWKWARD = 'a "quoted" back\\slash, {braces}, (parens); tab\tnew\nline ünïcødé 🚀 NULL';

/** A realistic history: creates, renames, relinks, disables and deletes across 40 templates. */
export async function writeHistory(spine: Spine, count = 40, prefix = 'first'): Promise<bigint> {
  let tick = 0;
  const run = async (id: string, command: TemplateCommand) =>
    executeCommand(spine.deps, templateAggregate, id, command, {
      actorId: null,
      correlationId: randomUUID(),
      causationId: null,
      now: new Date(FIXED_START + tick++ * 1000),
    });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    await run(id, {
      type: 'Create',
      data: {
        ownerId: null,
        id,
        name: `${prefix} template ${i}`,
        template: `${prefix}_template_${i}`,
        description: i % 5 === 1 ? `number ${i}: ${AWKWARD}` : `number ${i}`,
        labels: i % 5 === 1 ? [`group-${i % 3}`, AWKWARD, 'NULL', '"'] : [`group-${i % 3}`],
        abstract: i % 5 === 0,
        cloudResourceTypes: ['aws_s3_bucket'],
        configuration: i % 5 === 1 ? { size: i, note: AWKWARD, nested: { list: [AWKWARD, null] } } : { size: i },
        documentationUrl: null,
        executorIds: [],
        parentIds: i > 0 && i % 4 === 0 ? [ids[i - 1] ?? id] : [],
        status: 'enabled',
      },
    });
  }
  let last = 0n;
  for (const [i, id] of ids.entries()) {
    if (i % 2 === 0)
      last =
        (await run(id, { type: 'Update', data: { changes: { name: `${prefix} renamed ${i}`, labels: ['renamed'] } } })).position ?? last;
    if (i % 3 === 0) last = (await run(id, { type: 'Disable' })).position ?? last;
    // Templates that are another's parent (i + 1 divisible by 4) cannot be deleted.
    if (i % 7 === 6 && (i + 1) % 4 !== 0) last = (await run(id, { type: 'Delete' })).position ?? last;
  }
  return last;
}

/** A pool whose n-th COMMIT fails, as if the process died just before committing that batch. */
export function dyingPool(pool: SqlPool, failOnCommit: number, onDeath: () => void): SqlPool {
  let commits = 0;
  return interceptClients(pool, async (text, send, client) => {
    if (/\bCOMMIT$/.test(text) && ++commits === failOnCommit) {
      await client.query('ROLLBACK');
      onDeath();
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
    }
    return send();
  });
}
