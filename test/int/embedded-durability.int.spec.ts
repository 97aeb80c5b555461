import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { DurableNodeFS, syncTree, type SyncedKind } from '../../src/storage/durable-nodefs.js';
import { createPglitePool } from '../../src/storage/pool.js';
import type { DatabaseTarget } from '../support/databases.js';
import { openHttpApp } from '../support/http-app.js';
import { syncShadow } from '../support/sync-shadow.js';

/**
 * The embedded database keeps what it acknowledges across an OS crash or a power loss
 * (docs/decisions/0013-durable-embedded-database.md): its fsync calls reach the disk, observed at the
 * filesystem layer; and a copy of the data directory holding only what was synced (what a disk holds
 * once its page cache is lost: test/support/sync-shadow.ts) starts, with every acknowledged write.
 */
describe('the embedded database on disk', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'infraledger-durability-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const dir = (name: string): string => path.join(scratch, name);

  it('syncs each committed write’s WAL to the disk before the commit returns, and a new database whole', async () => {
    const synced: { kind: SyncedKind; hostPath: string }[] = [];
    const pool = await createPglitePool(dir('observed'), { onSync: (kind, hostPath) => synced.push({ kind, hostPath }) });
    try {
      // Created: every file and directory of the new database was synced once.
      expect(synced.some(({ kind, hostPath }) => kind === 'file' && hostPath.endsWith('PG_VERSION'))).toBe(true);
      expect(synced.some(({ kind, hostPath }) => kind === 'directory' && hostPath === dir('observed'))).toBe(true);
      await pool.query('CREATE TABLE acknowledged (id int PRIMARY KEY)');
      for (let id = 1; id <= 5; id++) {
        const before = synced.length;
        await pool.query('INSERT INTO acknowledged VALUES ($1)', [id]);
        const walSyncs = synced
          .slice(before)
          .filter(({ kind, hostPath }) => kind === 'file' && hostPath.includes(`${path.sep}pg_wal${path.sep}`));
        expect(walSyncs.length, `commit ${id}`).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await pool.end();
    }
  });

  it('keeps every acknowledged write of the service when the page cache is lost', async () => {
    const live = dir('service');
    const shadow = syncShadow(live, dir('service-synced'));
    const target: DatabaseTarget = {
      name: 'pglite',
      async create() {
        const pool = await createPglitePool(live, { onSync: shadow.observe });
        return { pool, close: () => pool.end() };
      },
    };
    // The restarted service must read what this one encrypted.
    const env = { SECRET_KEY: randomBytes(32).toString('base64') };
    const h = await openHttpApp(target, { env });
    const acknowledged: string[] = [];
    try {
      for (let i = 1; i <= 20; i++) {
        const created = await h.inject({
          method: 'POST',
          url: '/api/templates',
          payload: { name: `Durable ${i}`, template: `durable_${i}` },
        });
        expect(created.statusCode, created.body).toBe(201);
        acknowledged.push(`Durable ${i}`);
      }
      // The crash: the disk as it is now, nothing more (the clean shutdown below would sync more).
      cpSync(dir('service-synced'), dir('service-after-crash'), { recursive: true });
    } finally {
      await h.close();
    }
    // Started on what the disk kept: every acknowledged event is there, and the read model (whose
    // batches commit without waiting for the disk: they are rebuilt from the events) catches up.
    const after: DatabaseTarget = {
      name: 'pglite',
      async create() {
        const pool = await createPglitePool(dir('service-after-crash'));
        return { pool, close: () => pool.end() };
      },
    };
    const recovered = await openHttpApp(after, { env });
    try {
      const events = await recovered.database.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE type = 'TemplateCreated'",
      );
      expect(events.rows[0]?.n).toBe(acknowledged.length);
      const head = await recovered.services.store.lastPosition();
      if (head !== undefined) await recovered.services.waitFor(['templates'], head);
      const listed = await recovered.inject({ method: 'GET', url: '/api/templates?sort=["createdAt","ASC"]&range=[0,100]' });
      expect(listed.json<{ name: string }[]>().map((template) => template.name)).toEqual(acknowledged);
    } finally {
      await recovered.close();
    }
  });

  it('(the technique has teeth) loses acknowledged commits when PostgreSQL runs with fsync off, as PGlite starts by default', async () => {
    const live = dir('fsync-off');
    const shadow = syncShadow(live, dir('fsync-off-synced'));
    // PGlite's own start parameters (with -F, fsync off) on the same filesystem.
    const db = await PGlite.create({ fs: new DurableNodeFS(live, shadow.observe), startParams: PGlite.defaultStartParams });
    syncTree(live, shadow.observe);
    await db.exec('CREATE TABLE acknowledged (id int PRIMARY KEY)');
    for (let id = 1; id <= 5; id++) await db.query('INSERT INTO acknowledged VALUES ($1)', [id]);
    cpSync(dir('fsync-off-synced'), dir('fsync-off-after-crash'), { recursive: true });
    await db.close();
    const recovered = await createPglitePool(dir('fsync-off-after-crash'));
    try {
      const table = await recovered.query<{ name: string | null }>("SELECT to_regclass('acknowledged')::text AS name");
      expect(table.rows[0]?.name).toBeNull();
    } finally {
      await recovered.end();
    }
  });
});
