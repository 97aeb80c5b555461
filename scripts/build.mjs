#!/usr/bin/env node
// Builds the service's parts (server, web UI, GraphiQL), or with --if-stale only those whose inputs
// changed since they were last built: `npm start` (scripts/start.mjs) does that first, so a restart
// of a current build starts at once while a first start, or a start after a change or a `git pull`,
// builds what it needs.
// A part is current when the SHA-256 over its input files (paths and contents) equals the one
// recorded at its last successful build (dist/.build/<part>.sha256) and its output exists. Reading
// and hashing every input took 45 ms of each start, so the build also records the inputs' listing
// (paths, sizes, modification times; dist/.build/<part>.listing): while it is unchanged, the part is
// current without a file being read.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Skipped under an input folder: installed packages and hidden entries (.DS_Store, editors' files). */
const skipped = (relative) => relative.split(path.sep).some((name) => name === 'node_modules' || name.startsWith('.'));

function filesUnder(root, entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  // One recursive listing of the folder: a call per folder and a stat per entry cost 19 ms a start.
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((dirent) => dirent.isFile())
    .map((dirent) => path.relative(root, path.join(dirent.parentPath ?? dirent.path, dirent.name)))
    .filter((file) => !skipped(path.relative(entry, file)));
}

/** A part's input files under `root`, relative to it, in a stable order. */
const inputFiles = (root, part) => [...new Set(part.inputs.flatMap((entry) => filesUnder(root, entry)))].sort();

/** The digest of a part's inputs under `root`: every file's path and content, in a stable order. */
export function inputsDigest(root, part, files = inputFiles(root, part)) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.split(path.sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * The inputs as the file system lists them (paths, sizes, modification times, hashed) and the newest
 * modification time: no file is read. A file changed within RACY_MS of when a listing was taken may
 * keep its size and time (coarse clocks), so such a listing is not trusted (git's "racily clean").
 */
function inputsListing(root, files) {
  const hash = createHash('sha256');
  let newest = 0;
  for (const file of files) {
    const { size, mtimeMs } = statSync(path.join(root, file));
    newest = Math.max(newest, mtimeMs);
    hash.update(`${file.split(path.sep).join('/')}\0${String(size)}\0${String(mtimeMs)}\0`);
  }
  return { hash: hash.digest('hex'), newest };
}
const RACY_MS = 2000;

const stampFile = (root, part) => path.join(root, 'dist', '.build', `${part.name}.sha256`);
const listingFile = (root, part) => path.join(root, 'dist', '.build', `${part.name}.listing`);

/** Records the listing the inputs have now (`<hash> <when taken>`), for the next check to trust. */
function recordListing(root, part, files, listing = inputsListing(root, files)) {
  mkdirSync(path.dirname(listingFile(root, part)), { recursive: true });
  writeFileSync(listingFile(root, part), `${listing.hash} ${String(Date.now())}\n`);
}

/** Whether the inputs are listed as they were when the part was last found current, that listing trusted. */
function listedAsBefore(root, part, listing) {
  const file = listingFile(root, part);
  if (!existsSync(file)) return false;
  const [hash, taken] = readFileSync(file, 'utf8').trim().split(' ');
  return hash === listing.hash && listing.newest < Number(taken) - RACY_MS;
}

/**
 * Why a part must be built, or undefined when its build is current: by the inputs' listing when it is
 * as recorded, otherwise by their digest. A part found current by its digest (a checkout rewrote files
 * without changing them) records its listing again, so that the next check reads no file.
 */
export function staleness(root, part) {
  if (!existsSync(path.join(root, part.output))) return 'not built';
  const stamp = stampFile(root, part);
  if (!existsSync(stamp)) return 'built by another command';
  const files = inputFiles(root, part);
  const listing = inputsListing(root, files);
  if (listedAsBefore(root, part, listing)) return undefined;
  if (readFileSync(stamp, 'utf8').trim() !== inputsDigest(root, part, files)) return 'sources changed';
  recordListing(root, part, files, listing);
  return undefined;
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
  const files = inputFiles(root, part);
  const digest = inputsDigest(root, part, files);
  await run(part.command());
  mkdirSync(path.dirname(stampFile(root, part)), { recursive: true });
  writeFileSync(stampFile(root, part), `${digest}\n`);
  // The listing is recorded by the next check that finds the part current by its digest: taken now,
  // files edited during the build could look unchanged.
  rmSync(listingFile(root, part), { force: true });
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
