import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Three tiers picked by file suffix (STYLE.md): unit, int (real stores), e2e (built service over HTTP).
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
      { extends: true, test: { name: 'e2e', include: ['test/**/*.e2e.spec.ts'], globalSetup: ['test/e2e/global-setup.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
    pool: 'forks',
    // The JSON report lets .ci/run print a runner-neutral 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
