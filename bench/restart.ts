/**
 * `npx tsx bench/restart.ts [rounds] [--vs <checkout>]`: how long a restart takes, from the command
 * to the first `200` of `/healthz`, in embedded mode with an existing data directory and a current
 * build. `npm start` (npm, then scripts/start.mjs: the freshness check and the server) and the bare
 * `node dist/src/main.js` take turns; `--vs` adds the bare server of another checkout (its own
 * `dist/`, built, and the same migrations), e.g. the commit before a change. The first start creates
 * the data directory and is not counted; run `npm run build` first, or the first `npm start`
 * measures a build.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PORT = 18_000 + Math.floor(Math.random() * 1000);
const POLL_MS = 10;
const TIMEOUT_MS = 300_000;

interface Side {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

const args = process.argv.slice(2);
const vsIndex = args.indexOf('--vs');
const other = vsIndex >= 0 ? args[vsIndex + 1] : undefined;
if (vsIndex >= 0 && !other) throw new Error('--vs needs the path of another checkout');
/** The arguments that are not `--vs <checkout>`: the number of rounds, if given. */
const positional = vsIndex >= 0 ? [...args.slice(0, vsIndex), ...args.slice(vsIndex + 2)] : args;
const sides: readonly Side[] = [
  { name: 'npm start', command: 'npm', args: ['start', '--silent'] },
  { name: 'node dist/src/main.js', command: process.execPath, args: ['dist/src/main.js'] },
  ...(other
    ? [{ name: `${other} node dist/src/main.js`, command: process.execPath, args: [path.resolve(other, 'dist/src/main.js')] }]
    : []),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function healthy(): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${PORT}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** This environment in embedded mode: whatever points the shell at a server is left out. */
function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, EVENT_STORE: _store, EVENTSTOREDB_URL: _esdb, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
}

/** Seconds from spawning the command to its first healthy answer; stops it (its whole process group) after. */
async function timeStart(command: string, args: readonly string[], dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    stdio: 'ignore',
    env: embeddedEnv(dataDir),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const state = { exited: false };
  void exited.then(() => (state.exited = true));
  try {
    while (!(await healthy())) {
      if (state.exited) throw new Error(`${command} ${args.join(' ')} exited before it answered /healthz`);
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`${command} ${args.join(' ')} did not answer /healthz within ${TIMEOUT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
    return (performance.now() - started) / 1000;
  } finally {
    if (child.pid !== undefined && !state.exited) process.kill(-child.pid, 'SIGTERM');
    await exited;
    while (await healthy()) await sleep(50);
  }
}

async function main(): Promise<void> {
  const rounds = Number(positional[0] ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error('rounds must be a whole number from 1 to 50');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'infraledger-restart-'));
  try {
    const bare = sides[1] as Side;
    const first = await timeStart(bare.command, bare.args, dataDir);
    console.log(`first start (creates the data directory, not counted): ${first.toFixed(2)} s`);
    const times: Record<string, number[]> = Object.fromEntries(sides.map((side) => [side.name, []]));
    for (let round = 0; round < rounds; round++) {
      // The side that goes first rotates, so drift of the machine's speed falls on every side.
      const order = [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)];
      for (const side of order) times[side.name]?.push(await timeStart(side.command, side.args, dataDir));
      console.log(`round ${round + 1}: ${sides.map((side) => `${side.name} ${times[side.name]?.at(-1)?.toFixed(2)} s`).join(', ')}`);
    }
    for (const side of sides) {
      const sorted = [...(times[side.name] ?? [])].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
      console.log(
        `${side.name.padEnd(22)} min ${sorted[0]?.toFixed(2)} s, median ${median.toFixed(2)} s, max ${sorted.at(-1)?.toFixed(2)} s`,
      );
    }
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ${os.cpus().length} CPUs`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
