import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../support/service-process.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a CLI tool as `npm run <script>` does (the built one, scripts/cli.mjs), its output piped (not a terminal). */
function cli(script: 'projections' | 'seed', args: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.resolve('scripts/cli.mjs'), script, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 300_000 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('the command-line tools', () => {
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'il-cli-'));
    dataDir = path.join(root, 'data');
    // A data directory made the way users make one: the service's first start.
    const service = await startService({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: 'cli-admin-password-1' });
    expect(await service.stop()).toBe(0);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuse to create a DATA_DIR that does not exist, naming it (exit 2)', async () => {
    const typo = path.join(root, 'dat');
    for (const [script, args] of [
      ['projections', ['status']],
      ['projections', ['rebuild', 'templates']],
      ['seed', ['--resources', '5']],
    ] as const) {
      const run = await cli(script, args, { DATA_DIR: typo, LOG_LEVEL: 'warn' });
      expect(run.code, `${script} ${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`DATA_DIR ${typo} holds no infraledger database`);
      expect(existsSync(typo)).toBe(false);
    }
  });

  it('report a rebuild’s progress with its rate, and the count and time at the end', async () => {
    const run = await cli('projections', ['rebuild', 'audit_log'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^rebuild audit_log: (\d+)\/\1 events \(100%\) · [\d,]+ events\/s · done in \d+ s$/);
    expect(lines.at(-1)).toMatch(/^audit_log: replayed \d+ events, now at position \d+$/);
  });

  it('report each seed phase’s count, rate and time, on an existing DATA_DIR', async () => {
    const run = await cli('seed', ['--resources', '12', '--templates', '3', '--executors', '2', '--prefix', 'cli'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    for (const phase of ['integrations', 'templates', 'resources']) {
      expect(run.stdout).toMatch(new RegExp(`^seed ${phase}: (\\d+)/\\1 ${phase} \\(100%\\) · [\\d,]+ ${phase}/s · done in \\d+ s$`, 'm'));
    }
    expect(run.stdout).toMatch(/^seed resources: 12\/12 resources/m);
  });
});
