import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Three tiers picked by file suffix (CONTRIBUTING.md, "Tests"): unit, int (real stores), e2e (built service over HTTP).
export default defineConfig({
  resolve: {
    // graphql ships CJS (main) and ESM (module); Node, and so Mercurius, loads the CJS build, while
    // Vite would pick the ESM one for our code: two realms, and graphql refuses to mix them.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.spec.ts', 'src/**/*.unit.spec.ts'] } },
      { extends: true, test: { name: 'int', include: ['test/**/*.int.spec.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.spec.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
    pool: 'forks',
    // A worker process runs file after file with its modules loaded once (the suite imports ≈170 s of
    // modules when each file gets a fresh process) and keeps what a file built for the next, such as
    // the migrated PGlite template (test/support/databases.ts). Files share no state but those caches:
    // nothing mocks modules or changes process.env, and each file closes what it opens.
    isolate: false,
    // Vitest's default leaves a CPU free (one worker on the 2-vCPU CI machines); the suite's files
    // mostly wait on PostgreSQL, Chromium and child processes, and each uses databases and ports of
    // its own, so one worker per CPU (at least two) halves the wall time.
    maxWorkers: Math.max(2, availableParallelism()),
    // The JSON report lets .ci/run print a runner-neutral 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
