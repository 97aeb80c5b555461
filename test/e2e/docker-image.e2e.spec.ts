import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARTS } from '../../scripts/build.mjs';

/**
 * The Docker image, checked without Docker (there is no engine here, so the image itself is never
 * built by the tests): the Dockerfile runs the build `npm start` uses, copies every input of that
 * build (the parts scripts/build.mjs declares), and ships every file the service serves — which this
 * tier's global setup has just built with the same program, so the files are checked where the build
 * put them.
 */

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** The Dockerfile as stages of instructions (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const dockerfile = parseDockerfile(readFileSync('Dockerfile', 'utf8'));
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
const buildStage = dockerfile.find((s) => s.name === 'build');
const runtime = dockerfile.at(-1);

/** The paths a stage COPYs from the build context (not from another stage). */
const copiedFromContext = (stage: Stage | undefined): string[] =>
  (stage?.instructions ?? [])
    .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1),
    )
    .map((p) => path.normalize(p).replace(/\/$/, ''));

/** Whether a repository path is inside something the build stage copies. */
const isCopied = (file: string): boolean => {
  const normal = path.normalize(file);
  return copiedFromContext(buildStage).some((copied) => normal === copied || normal.startsWith(`${copied}/`));
};

/** The files an index.html loads from its own server (scripts, styles, icons). */
const assetsOf = (html: string): string[] => [...html.matchAll(/(?:src|href)="\/([^"]+)"/g)].map((m) => m[1] ?? '');

describe('the Docker image (the Dockerfile, checked without Docker)', () => {
  it('builds with the same `npm run build` as npm start', () => {
    expect(buildStage, 'a stage named build').toBeDefined();
    const runs = buildStage?.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args) ?? [];
    expect(
      runs.some((r) => /(^|&&\s*)npm run build(\s|$)/.test(r)),
      runs.join('\n'),
    ).toBe(true);
    // npm start builds with the same program (only what is stale), npm run build with all of it.
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
    expect(readFileSync('scripts/start.mjs', 'utf8')).toContain('buildParts([], { ifStale: true })');
    // The build is the server, the web UI and GraphiQL.
    expect(PARTS.map((part) => part.name)).toEqual(['server', 'ui', 'graphiql']);
  });

  it('copies every input of that build into the build stage', () => {
    const inputs = ['package.json', 'package-lock.json', 'scripts/build.mjs', ...new Set(PARTS.flatMap((part) => part.inputs))];
    expect(inputs).toEqual(expect.arrayContaining(['tsconfig.build.json', 'tsconfig.json', 'src', 'web/src', 'web/graphiql']));
    for (const input of inputs) expect(isCopied(input), `${input} is not copied into the build stage`).toBe(true);
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const input of inputs)
      expect(
        ignored.some((pattern) => input === pattern || input.startsWith(`${pattern}/`)),
        `${input} is in .dockerignore`,
      ).toBe(false);
  });

  it('ships dist, the runtime dependencies and package.json (the service finds dist/ from it)', () => {
    const copies = runtime?.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args) ?? [];
    expect(copies).toEqual(
      expect.arrayContaining(['--from=build /app/dist ./dist', '--from=build /app/node_modules ./node_modules', 'package.json ./']),
    );
  });

  it('finds after the build every file the image serves: the server, the web UI and GraphiQL with their assets', () => {
    const cmd = runtime?.instructions.find((i) => i.keyword === 'CMD')?.args ?? '';
    const entry = /"(dist\/[^"]+\.js)"/.exec(cmd)?.[1];
    expect(entry).toBe('dist/src/main.js');
    expect(existsSync(entry ?? '')).toBe(true);
    for (const root of ['dist/web', 'dist/graphiql']) {
      const index = path.join(root, 'index.html');
      expect(existsSync(index), index).toBe(true);
      const assets = assetsOf(readFileSync(index, 'utf8'));
      expect(assets.length, `${index} loads its scripts and styles`).toBeGreaterThan(0);
      // The UI is served at /, GraphiQL's assets under /api/graphql/assets/ (both map onto their root).
      for (const asset of assets) {
        const file = path.join(root, asset.replace(/^api\/graphql\//, ''));
        expect(existsSync(file), `${index} loads ${asset}: ${file} is missing`).toBe(true);
      }
    }
  });

  it('runs as the unprivileged node user, with a health check on /healthz', () => {
    const users = runtime?.instructions.filter((i) => i.keyword === 'USER').map((i) => i.args) ?? [];
    expect(users.at(-1)).toBe('node');
    const keywords = runtime?.instructions.map((i) => i.keyword) ?? [];
    expect(keywords.lastIndexOf('USER')).toBeGreaterThan(keywords.lastIndexOf('RUN'));
    const health = runtime?.instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(health).toContain('/healthz');
  });
});
