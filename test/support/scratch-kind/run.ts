import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findProjection } from '../../../src/projections/registry.js';
import { rebuildProjection } from '../../../src/projections/rebuild.js';
import { databaseTargets, type DatabaseTarget } from '../databases.js';
import { openHttpApp } from '../http-app.js';

/**
 * The scratch-kind run (test/int/adding-a-kind.int.spec.ts): started with ./register.mjs, so the
 * service's catalog holds one more kind, declared in ./catalog-kinds.ts and nowhere else. Creates its
 * table as its migration would, then uses it the way a client does — REST, GraphQL, search, a
 * webhook, a rebuild — and prints what it saw as one JSON line.
 */

/** The migration the kind would ship: the catalog kit's columns and the declared fields'. */
const MIGRATION = `
CREATE TABLE scratches (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  name text NOT NULL,
  size text,
  owner_id uuid
);`;

async function main(): Promise<void> {
  const base = databaseTargets().find((candidate) => candidate.name === 'pglite');
  if (!base) throw new Error('no embedded database target');
  const target: DatabaseTarget = {
    name: 'pglite',
    create: async () => {
      const database = await base.create();
      await database.pool.query(MIGRATION);
      return database;
    },
  };
  const received: { type: string; subject: string }[] = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push(JSON.parse(body) as { type: string; subject: string });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/scratch`;
  const h = await openHttpApp(target, { env: { WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' }, webhookPollIntervalMs: 20 });
  try {
    const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => {
      const response = await h.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
      return { status: response.statusCode, body: response.body === '' ? null : response.json<unknown>() };
    };
    const webhook = await call('POST', '/api/webhooks', {
      name: 'scratch out',
      url: receiverUrl,
      entityKinds: ['scratch'],
      secret: 'scratch-secret-of-thirty-two-chars',
    });
    const created = await call('POST', '/api/scratches', { name: 'first scratch', size: 'large', labels: ['demo'] });
    const id = (created.body as { id: string }).id;
    const refused = await call('POST', '/api/scratches', { name: 'second', size: 'x'.repeat(21) });
    const updated = await call('PATCH', `/api/scratches/${id}`, { description: 'changed' });
    const listed = await call('GET', `/api/scratches?filter=${encodeURIComponent(JSON.stringify({ size: 'large' }))}`);
    const graphql = await call('POST', '/api/graphql', {
      query: 'query($id: UUID!) { scratches { name size } scratch(id: $id) { name owner { id } creator { identifier } } scratchesCount }',
      variables: { id },
    });
    const search = await call('GET', '/api/search?q=first%20scratch');
    const history = await call('GET', `/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: id }))}`);
    for (let waited = 0; received.length < 2 && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const projection = findProjection('scratches');
    if (!projection) throw new Error('no scratches projection');
    const rebuilt = await rebuildProjection(
      { pool: h.services.pool, store: h.services.store, codec: h.services.codec, log: h.services.log },
      projection,
    );
    const afterRebuild = await call('GET', `/api/scratches/${id}`);
    console.log(
      JSON.stringify(
        { webhook, created, refused, updated, listed, graphql, search, history, received, rebuilt, afterRebuild },
        (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value),
      ),
    );
  } finally {
    await h.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

await main();
