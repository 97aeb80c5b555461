import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/service-process.js';

/** An npm script running in its own process group (npm, node, tsx, vite), so the whole group can be stopped. */
interface Script {
  readonly child: ChildProcess;
  readonly output: () => string;
}

function runScript(name: string, env: Record<string, string>): Script {
  const child = spawn('npm', ['run', '--silent', name], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Polls `url` until it answers 200 (a process coming up), bounded. */
async function until(url: string, script: Script, timeoutMs = 90_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (script.child.exitCode !== null) throw new Error(`exited with ${script.child.exitCode}:\n${script.output()}`);
    const response = await fetch(url).catch(() => undefined);
    if (response?.ok) return response;
    await response?.arrayBuffer();
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${script.output()}`);
    await delay(200);
  }
}

/** Whether any process of the group `pgid` is still alive (signal 0 probes without signalling). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the whole group and waits until its last process is gone: npm exits before the service it
 * started has finished its shutdown, and a service still closing its embedded database writes into
 * the data directory the test is about to remove.
 */
async function stopGroup(script: Script): Promise<void> {
  const pgid = script.child.pid;
  if (pgid === undefined) return;
  if (script.child.exitCode === null) {
    const exited = once(script.child, 'exit');
    process.kill(-pgid, 'SIGTERM');
    await exited;
  }
  const deadline = Date.now() + 30_000;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, 'SIGKILL');
      break;
    }
    await delay(100);
  }
}

describe('starting the service', () => {
  const running: Script[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const script of running.splice(0)) await stopGroup(script);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('npm start on a current build starts without rebuilding anything', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'il-start-'));
    dirs.push(dataDir);
    const port = await freePort();
    const script = runScript('start', { PORT: String(port), DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: 'e2e-start-password' });
    running.push(script);
    await until(`http://127.0.0.1:${port}/healthz`, script);
    // The e2e setup built everything: each part is found current, none is built again.
    expect(script.output()).toContain('build: server is current');
    expect(script.output()).toContain('build: ui is current');
    expect(script.output()).toContain('build: graphiql is current');
    expect(script.output()).not.toMatch(/build: \w+ \(/);
  });

  it('npm run dev serves the API from source and the UI from Vite, which proxies /api to it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'il-dev-'));
    dirs.push(dataDir);
    const [port, uiPort] = [await freePort(), await freePort()];
    const script = runScript('dev', {
      PORT: String(port),
      DEV_UI_PORT: String(uiPort),
      DATA_DIR: dataDir,
      INITIAL_ADMIN_PASSWORD: 'e2e-dev-password-1',
    });
    running.push(script);
    await until(`http://127.0.0.1:${port}/healthz`, script);
    const page = await until(`http://127.0.0.1:${uiPort}/`, script);
    // Vite's development page: modules from source, not the built bundle.
    expect(await page.text()).toContain('/src/main.tsx');
    const proxied = await until(`http://127.0.0.1:${uiPort}/api/auth/providers`, script);
    expect((await proxied.json()) as unknown[]).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'svc_service_account' })]));
  });
});
