import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../src/cli/seed/catalog.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import { isCatalogProjection, type CatalogProjection } from '../../src/projections/catalog-projection.js';
import { rebuildProjection } from '../../src/projections/rebuild.js';
import { allProjections } from '../../src/projections/registry.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { dumpTables } from '../support/spine.js';
import { AWKWARD } from '../support/template-history.js';

const catalog = allProjections.filter(isCatalogProjection);
/** Catalog entities whose events carry encrypted or write-only values: only Node can fold them (it holds the key). */
const MASKED = ['integrations', 'secrets', 'webhooks', 'resources'];

for (const target of databaseTargets()) {
  describe(`rebuilding the catalog on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
      const summary = await seedCatalog(h.services, { resources: 8, templates: 3, executors: 2, concurrency: 4, prefix: 'fold' });
      await waitForProjections(h.services, summary.head);
      await writeWhatTheSeedDoesNot(h);
      await waitForProjections(h.services, await h.services.store.lastPosition());
    });
    afterAll(async () => h.close());

    const rebuild = (projection: CatalogProjection, foldInSql?: boolean) =>
      rebuildProjection(
        { pool: h.services.pool, store: h.services.store, codec: h.services.codec, log: h.services.log, foldInSql },
        projection,
      );

    it('folds every entity without secrets in SQL into the very tables the live projections built', async () => {
      expect(catalog.map((p) => p.name).sort()).toEqual(
        [...MASKED, 'executors', 'source_code_versions', 'source_codes', 'storages', 'teams', 'templates', 'workspaces'].sort(),
      );
      for (const projection of catalog) {
        const live = await dumpTables(h.services.pool, projection.tables);
        expect(
          Object.values(live).some((rows) => rows.length > 0),
          projection.name,
        ).toBe(true);
        const result = await rebuild(projection);
        expect(result.how, projection.name).toBe(MASKED.includes(projection.name) ? 'replay' : 'sql');
        expect(await dumpTables(h.services.pool, projection.tables), projection.name).toEqual(live);
      }
    });

    it('gives the same tables when the events are replayed in Node', async () => {
      for (const projection of catalog.filter((p) => !MASKED.includes(p.name))) {
        const folded = await dumpTables(h.services.pool, projection.tables);
        expect((await rebuild(projection, false)).how).toBe('replay');
        expect(await dumpTables(h.services.pool, projection.tables), projection.name).toEqual(folded);
      }
    });
  });
}

/**
 * What the seed leaves out and a fold must get right: teams and workspaces, changes that set values
 * to null, empty lists and awkward text, links replaced, disable and enable, a failed run's error, and
 * deletes (tombstones keep their revision and lose their links).
 */
async function writeWhatTheSeedDoesNot(h: HttpHarness): Promise<void> {
  const send = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>): Promise<{ id: string }> => {
    const response = await h.inject({ method, url, ...(payload && { payload }) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.statusCode === 204 ? { id: '' } : response.json<{ id: string }>();
  };
  const idOf = async (sql: string): Promise<string> => {
    const { rows } = await h.services.pool.query<{ id: string }>(sql);
    const id = rows[0]?.id;
    if (!id) throw new Error(`nothing for ${sql}`);
    return id;
  };

  const team = await send('POST', '/api/teams', { name: 'fold owners', groupReferences: ['Platform'] });
  await send('PATCH', `/api/teams/${team.id}`, { name: 'fold owners, renamed', description: AWKWARD });
  const gone = await send('POST', '/api/teams', { name: 'fold gone' });
  await send('DELETE', `/api/teams/${gone.id}`);

  const github = await idOf("SELECT id FROM integrations WHERE integration_provider = 'github' ORDER BY name LIMIT 1");
  const workspace = await send('POST', '/api/workspaces', {
    name: 'fold-workspace',
    workspaceProvider: 'github',
    integrationId: github,
    configuration: { url: 'https://github.com/acme/infra' },
  });
  await send('PATCH', `/api/workspaces/${workspace.id}`, {
    configuration: { url: 'https://github.com/acme/platform', defaultBranch: 'main' },
    description: AWKWARD,
  });
  await send('POST', `/api/workspaces/${workspace.id}/actions/disable`);

  const [first, second] = (await h.services.pool.query<{ id: string }>('SELECT id FROM templates ORDER BY name LIMIT 2')).rows.map(
    (r) => r.id,
  );
  await send('PATCH', `/api/templates/${String(first)}`, {
    description: AWKWARD,
    labels: [],
    documentationUrl: null,
    configuration: { note: AWKWARD, list: [null, 'NULL'] },
    parentIds: [String(second)],
    ownerId: team.id,
  });
  await send('POST', `/api/templates/${String(first)}/actions/disable`);
  await send('POST', `/api/templates/${String(first)}/actions/enable`);

  const sourceCode = await idOf('SELECT id FROM source_codes ORDER BY source_code_url LIMIT 1');
  await send('PATCH', `/api/source_codes/${sourceCode}`, { gitTags: [], labels: ['team:fold', AWKWARD] });
  await send('POST', `/api/source_codes/${sourceCode}/actions/disable`);

  const aws = await idOf("SELECT id FROM integrations WHERE integration_provider = 'aws' ORDER BY name LIMIT 1");
  const storage = (name: string) =>
    send('POST', '/api/storages', {
      name,
      storageProvider: 'aws',
      integrationId: aws,
      configuration: { awsBucketName: 'tf-state', awsRegion: 'eu-west-1' },
    });
  const failing = await storage('fold-failing');
  for (const [action, payload] of [['execute'], ['start'], ['fail', { error: `bucket not reachable: ${AWKWARD}` }]] as const) {
    await send('POST', `/api/storages/${failing.id}/actions/${action}`, payload ?? {});
  }
  const deleted = await storage('fold-deleted');
  await send('DELETE', `/api/storages/${deleted.id}`);

  // Last, and disabled at once: no later event is one it would deliver (.invalid never resolves).
  const webhook = await send('POST', '/api/webhooks', {
    name: 'fold hook',
    url: 'https://hooks.example.invalid/fold',
    secret: 'webhook-secret-0123456789abcdef-0123',
    entityKinds: ['workspace'],
  });
  await send('POST', `/api/webhooks/${webhook.id}/actions/disable`);
}
