import { seedCatalog } from '../../src/cli/seed/catalog.js';
import { allEventDefinitions } from '../../src/events/catalog.js';
import { databaseTargets } from './databases.js';
import { FIXTURE_SECRET_KEY, KINDS, olderCreated, writeFixture, type EventFixture } from './event-fixtures.js';
import { openHttpApp, type HttpHarness } from './http-app.js';

/**
 * `npm run fixtures:events`: records the stored-event fixtures that are missing (test/fixtures/events,
 * docs/adding-a-field.md "Old events as fixtures"). Runs the service on a fresh embedded database with the
 * fixtures' key, writes at least one event of every type of every declared kind, and keeps the first
 * of each type at its current version; an older version of a created event is derived from it by
 * leaving out the fields added since. Fixtures already there are never rewritten: they are the bytes
 * an older service stored.
 */

const isCreated = (type: string): boolean => type.endsWith('Created');

/** Fails the recording with what went wrong. */
function ensure(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function main(): Promise<void> {
  const target = databaseTargets().find((candidate) => candidate.name === 'pglite');
  ensure(target !== undefined, 'no embedded database target');
  const h = await openHttpApp(target, { env: { SECRET_KEY: FIXTURE_SECRET_KEY } });
  try {
    await writeEveryType(h);
    const events = await h.services.store.readAll({ limit: 100_000 });
    const written: string[] = [];
    for (const { entity, definitions } of KINDS) {
      for (const definition of definitions) {
        const recorded = events.find((event) => event.type === definition.type);
        if (!recorded) {
          written.push(`${definition.type}: NOT WRITTEN (extend writeEveryType in test/support/record-event-fixtures.ts)`);
          continue;
        }
        const fixture: EventFixture = {
          type: recorded.type,
          streamId: recorded.streamId,
          streamRevision: String(recorded.streamRevision),
          data: recorded.data,
          metadata: recorded.metadata,
          origin: 'recorded',
        };
        if (writeFixture(fixture)) written.push(`${fixture.type} v${String(fixture.metadata.schemaVersion)}`);
        if (!isCreated(definition.type)) continue;
        for (let version = definition.version - 1; version >= 1; version--) {
          if (writeFixture(olderCreated(entity, fixture, version))) written.push(`${fixture.type} v${version} (derived)`);
        }
      }
    }
    console.log(written.length === 0 ? 'every fixture was there already' : `recorded: ${written.join(', ')}`);
    console.log(`${allEventDefinitions.length} event types in all; the fixtures cover those of the declared kinds`);
  } finally {
    await h.close();
  }
}

/** The id the statement's first row names. */
async function firstId(h: HttpHarness, statement: string): Promise<string> {
  const { rows } = await h.services.pool.query<{ id: string }>(statement);
  const id = rows[0]?.id;
  if (id === undefined) throw new Error(`nothing for ${statement}`);
  return id;
}

/**
 * Writes at least one event of every type of every declared kind through the service: the seed's
 * catalog (integrations, secrets, storages, source codes, executors, templates, versions, resources
 * through their lifecycles), then over REST what the seed does not (teams, workspaces, webhooks;
 * updates, disables, enables and deletes).
 */
async function writeEveryType(h: HttpHarness): Promise<void> {
  await seedCatalog(h.services, { resources: 12, templates: 3, executors: 2, concurrency: 1, prefix: 'golden' });
  const send = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    h.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  const created = async (url: string, payload: Record<string, unknown>): Promise<string> => {
    const answer = await send('POST', url, payload);
    ensure(answer.statusCode === 201, `${url}: ${answer.body}`);
    return answer.json<{ id: string }>().id;
  };
  const team = await created('/api/teams', { name: 'golden team' });
  const git = await created('/api/integrations', {
    name: 'golden git',
    integrationType: 'git',
    integrationProvider: 'github',
    configuration: { token: 'golden-token' },
  });
  await created('/api/workspaces', {
    name: 'golden workspace',
    workspaceProvider: 'github',
    integrationId: git,
    configuration: { url: 'https://github.com/example/golden', defaultBranch: 'main' },
  });
  await created('/api/webhooks', {
    name: 'golden webhook',
    url: 'https://hooks.example.com/golden',
    secret: 'golden-secret-of-thirty-two-chars',
  });
  const template = await created('/api/templates', { name: 'golden scratch', template: 'golden_scratch', abstract: true, ownerId: team });
  const resource = await created('/api/resources', { name: 'golden scratch resource', templateId: template });
  // Entities nothing refers to, for the kinds whose seeded ones are all referred to (their deletes).
  const aws = await firstId(h, "SELECT id::text AS id FROM integrations WHERE integration_provider = 'aws' AND deleted_at IS NULL");
  const sourceCode = await firstId(h, 'SELECT id::text AS id FROM source_codes WHERE deleted_at IS NULL');
  const storage = await created('/api/storages', {
    name: 'golden scratch state',
    storageProvider: 'aws',
    storageType: 'tofu',
    integrationId: aws,
    configuration: { awsBucketName: 'golden-scratch', awsRegion: 'eu-west-1' },
  });
  const executor = await created('/api/executors', {
    name: 'golden scratch runner',
    runtime: 'tofu',
    sourceCodeId: sourceCode,
    sourceCodeFolder: 'runner',
    sourceCodeBranch: 'main',
  });
  const version = await created('/api/source_code_versions', {
    templateId: template,
    sourceCodeId: sourceCode,
    sourceCodeFolder: 'modules/golden',
    sourceCodeVersion: 'v9.9.9',
  });
  for (const [plural, id] of [
    ['storages', storage],
    ['executors', executor],
    ['source_code_versions', version],
  ] as const) {
    const answer = await send('DELETE', `/api/${plural}/${id}`);
    ensure(answer.statusCode < 300, `${plural}: ${answer.body}`);
  }
  // One entity of each kind updated, disabled and enabled where its kit has them; each kind's newest deleted where nothing refers to it.
  for (const { entity } of KINDS) {
    const { rows } = await h.services.pool.query<{ id: string }>(
      `SELECT id::text AS id FROM ${entity.table} WHERE deleted_at IS NULL ORDER BY created_at DESC`,
    );
    const [first] = rows;
    if (!first) continue;
    await send('PATCH', `/api/${entity.plural}/${first.id}`, { description: 'golden change' });
    await send('POST', `/api/${entity.plural}/${first.id}/actions/disable`, {});
    await send('POST', `/api/${entity.plural}/${first.id}/actions/enable`, {});
  }
  ensure((await send('DELETE', `/api/resources/${resource}`)).statusCode < 300, 'the scratch resource was not deleted');
  for (const { entity } of KINDS) {
    const { rows } = await h.services.pool.query<{ id: string }>(
      `SELECT id::text AS id FROM ${entity.table} WHERE deleted_at IS NULL ORDER BY created_at DESC`,
    );
    for (const { id } of rows) {
      if ((await send('DELETE', `/api/${entity.plural}/${id}`)).statusCode < 300) break;
    }
  }
}

await main();
