import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CATALOG_ENTITIES } from '../../src/model/catalog-kinds.js';

/**
 * docs/adding-a-kind.md, kept true: a kind declared in one place (test/support/scratch-kind/
 * catalog-kinds.ts, the real list plus `scratch`) and given its table is served by every registry
 * with nothing else changed — REST (create, validation, update, list filters), GraphQL (list, single,
 * count, relations), search, the audit log, a webhook and a rebuild. The service runs in a process of
 * its own whose module hooks (test/support/scratch-kind/hooks.mjs) put the longer list where the
 * service reads its catalog kinds: the service's code is untouched.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

interface Seen {
  readonly webhook: Answer;
  readonly created: Answer;
  readonly refused: Answer;
  readonly updated: Answer;
  readonly listed: Answer;
  readonly graphql: Answer;
  readonly search: Answer;
  readonly history: Answer;
  readonly received: readonly { type: string; subject: string }[];
  readonly rebuilt: { projection: string; events: number; how: string };
  readonly afterRebuild: Answer;
}

describe('a kind added by its declaration alone', () => {
  it('is served by REST, GraphQL, search, the audit log, webhooks and a rebuild', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', './test/support/scratch-kind/register.mjs', 'test/support/scratch-kind/run.ts'],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' }, maxBuffer: 10 * 1024 * 1024 },
    );
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Seen;
    expect(seen.webhook.status).toBe(201);
    expect(seen.created).toMatchObject({
      status: 201,
      body: { name: 'first scratch', size: 'large', labels: ['demo'], status: 'enabled' },
    });
    const id = (seen.created.body as { id: string }).id;
    expect(seen.refused).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION', errors: [{ field: 'size', message: 'at most 20 characters' }] },
    });
    expect(seen.updated).toMatchObject({ status: 200, body: { description: 'changed', revision: 2 } });
    expect(seen.listed).toMatchObject({ status: 200, body: [{ id, size: 'large' }] });
    expect(seen.graphql.body).toEqual({
      data: {
        scratches: [{ name: 'first scratch', size: 'large' }],
        scratch: { name: 'first scratch', owner: null, creator: { identifier: 'admin' } },
        scratchesCount: 1,
      },
    });
    expect(seen.search.body).toEqual([expect.objectContaining({ kind: 'scratch', id, href: `/api/scratches/${id}` })]);
    expect((seen.history.body as { verb: string }[]).map((entry) => entry.verb)).toEqual(['updated', 'created']);
    expect(seen.received.map((event) => [event.type, event.subject])).toEqual([
      ['infraledger.ScratchCreated', `scratch/${id}`],
      ['infraledger.ScratchUpdated', `scratch/${id}`],
    ]);
    expect(seen.rebuilt).toMatchObject({ projection: 'scratches', events: 2 });
    expect(seen.afterRebuild).toMatchObject({ status: 200, body: { id, description: 'changed', revision: 2 } });
  }, 120_000);

  it('extends the real list of catalog kinds, so the run sees every kind the service has', async () => {
    const { CATALOG_ENTITIES: extended } = await import('../support/scratch-kind/catalog-kinds.js');
    expect(extended.slice(0, -1)).toEqual([...CATALOG_ENTITIES]);
  });
});
