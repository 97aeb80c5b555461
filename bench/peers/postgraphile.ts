import { execFile, fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { freePort, PRODUCTION_ENVIRONMENT } from '../commands/sides.js';

/** The folder of the PostGraphile side: its own package.json and lockfile (it needs graphql 15). */
const HOME = fileURLToPath(new URL('./postgraphile/', import.meta.url));

/** PostGraphile v4 serving the bench database's tables, in a child process. */
export interface PostGraphileSide {
  /** Its GraphQL endpoint. */
  readonly url: string;
  /** Its process, whose CPU the bench reads. */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** Installs the side's pinned packages on first use (`npm ci` in its folder; the npm registry only). */
export async function installPostGraphile(say: (line: string) => void): Promise<void> {
  if (existsSync(`${HOME}node_modules/postgraphile/package.json`)) return;
  say('[peers] installing PostGraphile 4.14.1 into bench/peers/postgraphile (npm ci, once)');
  await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--silent'], { cwd: HOME, timeout: 300_000 });
}

/** Starts PostGraphile on `databaseUrl`; with `jwtSecret`, every request must carry a JWT signed with it. */
export async function openPostGraphile(databaseUrl: string, jwtSecret?: string): Promise<PostGraphileSide> {
  const port = await freePort();
  const child: ChildProcess = fork(`${HOME}server.cjs`, [databaseUrl, String(port), ...(jwtSecret ? [jwtSecret] : [])], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    // Plain Node in production mode, as the other sides: fork would otherwise pass on the bench's own tsx loader.
    execArgv: [],
    env: { ...process.env, ...PRODUCTION_ENVIRONMENT },
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`PostGraphile exited with code ${String(code)} before listening`);
    }),
  ])) as [unknown];
  if (message !== 'listening') throw new Error(`PostGraphile said ${String(message)}`);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    pid: child.pid,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A JWT PostGraphile accepts (HS256, its default audience), for the side with authentication. */
export function postGraphileToken(secret: string): Promise<string> {
  return new SignJWT({ sub: 'bench' })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience('postgraphile')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));
}
