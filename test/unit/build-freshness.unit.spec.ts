import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPart, PARTS, staleness, type BuildPart } from '../../scripts/build.mjs';

/** A part like the real ones, in a scratch directory; its "build" writes the output and counts runs. */
function fakePart(root: string, runs: string[]): { part: BuildPart; run: (argv: string[]) => void } {
  const part: BuildPart = { name: 'server', inputs: ['src', 'tsconfig.json'], output: 'dist/src/main.js', command: () => ['build-it'] };
  const run = (argv: string[]) => {
    runs.push(argv.join(' '));
    writeFileSync(path.join(root, 'dist/src/main.js'), 'built');
  };
  return { part, run };
}

describe('npm start builds only what is stale (scripts/build.mjs --if-stale)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'infraledger-build-'));
    await mkdir(path.join(root, 'src/http'), { recursive: true });
    await mkdir(path.join(root, 'dist/src'), { recursive: true });
    await writeFile(path.join(root, 'src/main.ts'), 'main');
    await writeFile(path.join(root, 'src/http/app.ts'), 'app');
    await writeFile(path.join(root, 'tsconfig.json'), '{}');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('given nothing built, the part is stale; once built it is current and a restart builds nothing', async () => {
    const runs: string[] = [];
    const { part, run } = fakePart(root, runs);
    expect(staleness(root, part)).toBe('not built');
    await buildPart(root, part, run);
    expect(runs).toEqual(['build-it']);
    expect(staleness(root, part)).toBeUndefined();
  });

  it('given a current build, a changed, added or removed source makes it stale again', async () => {
    const { part, run } = fakePart(root, []);
    await buildPart(root, part, run);
    await writeFile(path.join(root, 'src/http/app.ts'), 'app, changed');
    expect(staleness(root, part)).toBe('sources changed');
    await buildPart(root, part, run);
    await writeFile(path.join(root, 'src/http/new.ts'), 'new');
    expect(staleness(root, part)).toBe('sources changed');
    await buildPart(root, part, run);
    await rm(path.join(root, 'src/http/new.ts'));
    expect(staleness(root, part)).toBe('sources changed');
  });

  /** Moves every input's modification time an hour back: older than any listing taken from now on. */
  const ageInputs = (files: readonly string[]) => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const file of files) utimesSync(path.join(root, file), hourAgo, hourAgo);
  };
  const inputs = ['src/main.ts', 'src/http/app.ts', 'tsconfig.json'];
  const listing = () => path.join(root, 'dist/.build/server.listing');

  it('given a current build, a check records the inputs’ listing; while it holds, no input is read', async () => {
    const { part, run } = fakePart(root, []);
    await buildPart(root, part, run);
    ageInputs(inputs);
    expect(existsSync(listing())).toBe(false);
    expect(staleness(root, part)).toBeUndefined();
    expect(existsSync(listing())).toBe(true);
    // A rewrite that keeps a file's size and modification time is not seen (make's and git's assumption):
    // the listing answered without reading the file.
    const { mtime } = statSync(path.join(root, 'src/main.ts'));
    await writeFile(path.join(root, 'src/main.ts'), 'MAIN');
    utimesSync(path.join(root, 'src/main.ts'), mtime, mtime);
    expect(staleness(root, part)).toBeUndefined();
  });

  it('given a recorded listing, a touched but unchanged input is current (and listed again), a changed one stale', async () => {
    const { part, run } = fakePart(root, []);
    await buildPart(root, part, run);
    ageInputs(inputs);
    expect(staleness(root, part)).toBeUndefined();
    const recorded = statSync(listing()).mtimeMs;
    // Touched (a checkout rewrote it as it was): the digest decides, and the listing is taken again.
    const older = new Date(Date.now() - 1_800_000);
    utimesSync(path.join(root, 'src/http/app.ts'), older, older);
    expect(staleness(root, part)).toBeUndefined();
    expect(statSync(listing()).mtimeMs).toBeGreaterThanOrEqual(recorded);
    await writeFile(path.join(root, 'src/http/app.ts'), 'app, changed');
    utimesSync(path.join(root, 'src/http/app.ts'), older, older);
    expect(staleness(root, part)).toBe('sources changed');
  });

  it('does not trust a listing taken within 2 s of an input’s change (a coarse clock may hide a second change)', async () => {
    const { part, run } = fakePart(root, []);
    await buildPart(root, part, run);
    expect(staleness(root, part)).toBeUndefined();
    const { mtime } = statSync(path.join(root, 'src/main.ts'));
    await writeFile(path.join(root, 'src/main.ts'), 'MAIN');
    utimesSync(path.join(root, 'src/main.ts'), mtime, mtime);
    expect(staleness(root, part)).toBe('sources changed');
  });

  it('given output built by another command (no record of its inputs), builds again', async () => {
    const { part } = fakePart(root, []);
    await writeFile(path.join(root, 'dist/src/main.js'), 'built elsewhere');
    expect(staleness(root, part)).toBe('built by another command');
  });

  it('covers the server, the web UI and GraphiQL, each with its sources and the lockfile', () => {
    expect(PARTS.map((p) => p.name)).toEqual(['server', 'ui', 'graphiql']);
    for (const part of PARTS) expect(part.inputs).toContain('package-lock.json');
    expect(PARTS.find((p) => p.name === 'ui')?.inputs).toContain('web/src');
  });
});
