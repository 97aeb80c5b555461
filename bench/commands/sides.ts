import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';

/**
 * The two sides of `npm run bench -- commands`: the service as it was before issue 20 (a commit built
 * into a temporary directory) and as it is now, each started as `node src/main.ts` in a child process
 * on a database of its own, on the same PostgreSQL server.
 */

/** The commit before "writes at the speed of PostgreSQL" (global append lock, one runner per projection). */
export const BASE_COMMIT = '98b665ff84ed4591a6497dab7f32355f1384c1b5';

/** The commit before the embedded database was made durable (fsync on, through PGlite's filesystem). */
export const DURABLE_BASE_COMMIT = '403376f63ebc4ddf19fd3e7065e5bf1bb4e1e117';

/** The repository this bench runs from. */
export const REPOSITORY = path.resolve(import.meta.dirname, '..', '..');

/**
 * The source tree of `ref`, extracted once into the temporary directory, sharing this checkout's
 * node_modules (the dependencies the base needs are a subset of today's).
 */
export function sourceTreeOf(ref: string): string {
  const sha = spawnSync('git', ['-C', REPOSITORY, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' });
  if (sha.status !== 0) throw new Error(`unknown git revision ${ref}: ${sha.stderr.trim()}`);
  const commit = sha.stdout.trim();
  const dir = path.join(os.tmpdir(), `infraledger-bench-${commit.slice(0, 12)}`);
  if (!existsSync(path.join(dir, 'src', 'main.ts'))) {
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('sh', ['-c', `git -C "${REPOSITORY}" archive ${commit} | tar -x -C "${dir}"`], { encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`could not extract ${commit}: ${archive.stderr.trim()}`);
  }
  if (!existsSync(path.join(dir, 'node_modules')))
    symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Drops and creates a database: each run starts empty. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A service started from a source tree, listening on 127.0.0.1. */
export interface ServiceProcess {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** A side's program: its file, and whether Node needs tsx's loader to run it (TypeScript). */
export interface ServiceEntry {
  readonly file: string;
  readonly typescript: boolean;
}

/**
 * What a JavaScript entry runs with besides its own settings, as the container image runs the
 * service: `NODE_ENV=production` (graphql-js, for one, then skips its development-only checks).
 */
export const PRODUCTION_ENVIRONMENT = { NODE_ENV: 'production' } as const;

/** `src/main.ts` of `tree`, through tsx: the entry of a checkout that may have no build of its own. */
export const sourceEntry = (tree: string): ServiceEntry => ({ file: path.join(tree, 'src', 'main.ts'), typescript: true });

/**
 * This checkout as production starts it: `npm start`'s program (scripts/start.mjs: what is stale is
 * built first, then the built server runs) on plain Node. Through tsx the same service spent 6% more
 * CPU per create (source maps on, the loader's hooks in every import).
 */
export const PRODUCTION_ENTRY: ServiceEntry = { file: path.join(REPOSITORY, 'scripts', 'start.mjs'), typescript: false };

/** Starts `entry` (by default `src/main.ts` of `tree`) with `env` in `tree` and waits until `/readyz` answers 200. */
export async function startService(
  tree: string,
  env: Record<string, string>,
  name: string,
  entry: ServiceEntry = sourceEntry(tree),
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, entry.typescript ? ['--import', 'tsx', entry.file] : [entry.file], {
    cwd: tree,
    env: {
      ...process.env,
      ...(!entry.typescript && PRODUCTION_ENVIRONMENT),
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await Promise.race([exited, delay(10_000).then(() => child.kill('SIGKILL'))]);
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${name} service exited (${child.exitCode}): ${stderr}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { baseUrl, child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the ${name} service did not become ready: ${stderr}`);
    }
    await delay(200);
  }
}
