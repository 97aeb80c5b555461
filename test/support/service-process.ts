import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The built service (`dist/src/main.js`) running as a child process, as `npm start` runs it. */
export interface ServiceProcess {
  readonly baseUrl: string;
  readonly output: () => string;
  /** SIGKILL: no shutdown hooks, as a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful path. */
  stop(): Promise<number | null>;
}

export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const baseUrl = `http://127.0.0.1:${port}`;
  // Start-up is a process coming up, not a projection: poll its health endpoint, bounded. It answers
  // as soon as the port listens, a moment before the ready line reaches the pipe: wait for both.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    const ok =
      output.includes('infraledger is ready') &&
      (await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`service did not start within 60 s:\n${output}`);
    await delay(100);
  }
  return {
    baseUrl,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
