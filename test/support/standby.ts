import { execFile } from 'node:child_process';
import { appendFile, chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * A PostgreSQL primary and a streaming hot standby of its own, started from the installed server's
 * binaries (initdb, pg_basebackup, pg_ctl) in a scratch directory on ports of its own: the machine's
 * server is not touched. Run as root (CI), the clusters belong to the `postgres` user, as initdb requires.
 */
export interface StandbyPair {
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  /** Runs a statement on the standby (pausing and resuming its replay, reading its state). */
  onStandby<R extends pg.QueryResultRow>(text: string): Promise<R[]>;
  /** Stops the standby server (fast shutdown: its connections are ended), and starts it again. */
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's binaries (Debian's layout). */
async function binaries(): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql')).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  if (newest === undefined) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${newest}/bin`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary as the clusters' owner. */
const asOwner = (bin: string, tool: string, args: readonly string[]) =>
  asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), [...args]);

export async function startStandbyPair(): Promise<StandbyPair> {
  const bin = await binaries();
  const root = await mkdtemp(path.join(tmpdir(), 'il-standby-'));
  if (asRoot) await run('chown', ['postgres:postgres', root]);
  await chmod(root, 0o700);
  const primary = path.join(root, 'primary');
  const standby = path.join(root, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stop = async (): Promise<void> => {
    for (const dir of started.reverse()) await asOwner(bin, 'pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    // Trust on 127.0.0.1, replication included (initdb's pg_hba.conf has the replication lines).
    await asOwner(bin, 'initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    const settings = (port: number) =>
      `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${root}'\nwal_level = replica\n` +
      `max_wal_senders = 4\nhot_standby = on\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n`;
    await appendFile(path.join(primary, 'postgresql.conf'), settings(primaryPort));
    await asOwner(bin, 'pg_ctl', ['-D', primary, '-l', path.join(root, 'primary.log'), '-w', 'start']);
    started.push(primary);
    await asOwner(bin, 'pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standby,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    // The copied configuration names the primary's port: the last setting wins.
    await appendFile(path.join(standby, 'postgresql.conf'), `\nport = ${standbyPort}\n`);
    await asOwner(bin, 'pg_ctl', ['-D', standby, '-l', path.join(root, 'standby.log'), '-w', 'start']);
    started.push(standby);
  } catch (error) {
    await stop();
    throw error;
  }
  const standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl,
    async onStandby<R extends pg.QueryResultRow>(text: string) {
      const client = new pg.Client({ connectionString: standbyUrl });
      await client.connect();
      try {
        return (await client.query<R>(text)).rows;
      } finally {
        await client.end();
      }
    },
    async stopStandby() {
      await asOwner(bin, 'pg_ctl', ['-D', standby, '-m', 'fast', '-w', 'stop']);
    },
    async startStandby() {
      await asOwner(bin, 'pg_ctl', ['-D', standby, '-l', path.join(root, 'standby.log'), '-w', 'start']);
    },
    stop,
  };
}
