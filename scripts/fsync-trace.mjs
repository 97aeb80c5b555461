#!/usr/bin/env node
/**
 * `node scripts/fsync-trace.mjs [writes]`: shows at the system-call level that the embedded database
 * reaches the disk. Starts the built service (`dist/src/main.js`, `npm run build` first) in embedded
 * mode on a fresh DATA_DIR under `strace -f -e trace=fsync,fdatasync,sync_file_range,syncfs`, then
 * counts the sync calls of the start-up and of each acknowledged `POST /api/templates`. Needs strace
 * (`apt-get install strace`). Prints one line per phase; exits 1 if an acknowledged write made no sync.
 */
import { spawn, spawnSync } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const writes = Number(process.argv[2] ?? 5);
const password = 'fsync-trace-admin-password';
if (spawnSync('strace', ['-V']).status !== 0) {
  console.error('strace is not installed (apt-get install strace)');
  process.exit(2);
}
const port = await new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = server.address();
    server.close(() => resolve(free));
  });
});
const scratch = mkdtempSync(path.join(os.tmpdir(), 'infraledger-fsync-trace-'));
const trace = path.join(scratch, 'strace.log');
const { DATABASE_URL: _url, ...inherited } = process.env;
const child = spawn(
  'strace',
  ['-f', '-qq', '-e', 'trace=fsync,fdatasync,sync_file_range,syncfs', '-o', trace, process.execPath, 'dist/src/main.js'],
  {
    cwd: root,
    env: {
      ...inherited,
      DATA_DIR: path.join(scratch, 'data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      INITIAL_ADMIN_PASSWORD: password,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
    // A process group of its own: strace does not pass a SIGTERM on to the service it traces (nor exit
    // on it while tracing), so the group is signalled, the service with it.
    detached: true,
  },
);
const base = `http://127.0.0.1:${port}`;
const syncs = () =>
  readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /\b(fsync|fdatasync|sync_file_range|syncfs)\(/.test(line) && !line.includes('unfinished')).length;
try {
  for (let waited = 0; ; waited += 200) {
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (waited > 120_000) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const signIn = await fetch(`${base}/api/auth/service_account/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'admin', password }),
  });
  const { token } = await signIn.json();
  console.log(`start-up (a new database) and a sign-in: ${syncs()} sync calls`);
  let failed = false;
  for (let i = 1; i <= writes; i++) {
    const before = syncs();
    const answer = await fetch(`${base}/api/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: `Traced ${i}`, template: `traced_${i}` }),
    });
    const made = syncs() - before;
    console.log(`POST /api/templates ${i}: HTTP ${answer.status}, ${made} sync calls before the answer`);
    if (answer.status === 201 && made === 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group has already gone.
    }
  };
  signalGroup('SIGTERM');
  // The service shuts down gracefully within seconds; whatever is left after 10 s is killed.
  const timer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  signalGroup('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
}
