#!/usr/bin/env node
// Builds the service's parts (server, web UI, GraphiQL), or with --if-stale only those whose inputs
// changed since they were last built: `npm start` (scripts/start.mjs) does that first, so a restart
// of a current build starts at once while a first start, or a start after a change or a `git pull`,
// builds what it needs.
// A part is current when the SHA-256 over its input files (paths and contents) equals the one
// recorded at its last successful build (dist/.build/<part>.sha256) and its output exists.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files and folders a build reads (folders recursively), its output, and how it runs. */
export const PARTS = [
  {
    name: 'server',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    output: 'dist/src/main.js',
    command: () => [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  },
  {
    name: 'ui',
    inputs: [
      'web/src',
      'web/public',
      'web/index.html',
      'web/vite.config.ts',
      'web/precompress.ts',
      'web/tsconfig.json',
      'package-lock.json',
    ],
    output: 'dist/web/index.html',
    command: () => [viteBin(), 'build', '-c', 'web/vite.config.ts', '--logLevel', 'warn'],
  },
  {
    name: 'graphiql',
    inputs: ['web/graphiql', 'web/precompress.ts', 'package-lock.json'],
    output: 'dist/graphiql/index.html',
    command: () => [viteBin(), 'build', '-c', 'web/graphiql/vite.config.ts', '--logLevel', 'warn'],
  },
];

function viteBin() {
  return path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
}

function filesUnder(root, entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full)
    .filter((name) => name !== 'node_modules' && !name.startsWith('.'))
    .flatMap((name) => filesUnder(root, path.join(entry, name)));
}

/** The digest of a part's inputs under `root`: every file's path and content, in a stable order. */
export function inputsDigest(root, part) {
  const hash = createHash('sha256');
  const files = [...new Set(part.inputs.flatMap((entry) => filesUnder(root, entry)))].sort();
  for (const file of files) {
    hash.update(file.split(path.sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const stampFile = (root, part) => path.join(root, 'dist', '.build', `${part.name}.sha256`);

/** Why a part must be built, or undefined when its build is current. */
export function staleness(root, part) {
  if (!existsSync(path.join(root, part.output))) return 'not built';
  const stamp = stampFile(root, part);
  if (!existsSync(stamp)) return 'built by another command';
  return readFileSync(stamp, 'utf8').trim() === inputsDigest(root, part) ? undefined : 'sources changed';
}

// NODE_ENV=production whoever calls: under vitest (NODE_ENV=test) Vite would build React's development bundle.
const production = { ...process.env, NODE_ENV: 'production' };

/** Runs `node argv…` in `root` with the build's environment; rejects when it fails. */
function runNode(root, argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: root, stdio: 'inherit', env: production });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(argv[0] ?? '')} ${argv.slice(1).join(' ')} failed (${signal ?? code})`)),
    );
  });
}

/** Builds a part and records the digest its build came from (taken first: edits during the build make it stale). */
export async function buildPart(root, part, run = (argv) => runNode(root, argv)) {
  const digest = inputsDigest(root, part);
  await run(part.command());
  mkdirSync(path.dirname(stampFile(root, part)), { recursive: true });
  writeFileSync(stampFile(root, part), `${digest}\n`);
}

/**
 * Builds the parts named (every part when none is), or with `ifStale` only those whose inputs
 * changed, saying for each what it did. The parts build at the same time (each is one process, and a
 * first build is then as long as the longest part instead of the three in turn). Unknown names end
 * the process with status 2, a failed build with status 1. What it does is written to `report`.
 */
export async function buildParts(names = [], { ifStale = false, report = process.stdout } = {}) {
  const unknown = names.filter((n) => !PARTS.some((p) => p.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown part(s): ${unknown.join(', ')}; parts: ${PARTS.map((p) => p.name).join(', ')}\n`);
    process.exit(2);
  }
  const builds = [];
  for (const part of PARTS.filter((p) => names.length === 0 || names.includes(p.name))) {
    const why = ifStale ? staleness(ROOT, part) : 'asked to';
    if (why === undefined) {
      report.write(`build: ${part.name} is current\n`);
      continue;
    }
    report.write(`build: ${part.name} (${why})\n`);
    builds.push(buildPart(ROOT, part));
  }
  const failed = (await Promise.allSettled(builds)).filter((result) => result.status === 'rejected');
  for (const { reason } of failed) process.stderr.write(`build failed: ${reason instanceof Error ? reason.message : String(reason)}\n`);
  if (failed.length > 0) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  await buildParts(
    args.filter((a) => !a.startsWith('--')),
    { ifStale: args.includes('--if-stale') },
  );
}
