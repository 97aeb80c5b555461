import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { forbiddenFor, layerConfigs, LAYERS } from '../../eslint.layers.js';

// Lints with the layering rules only (the type-checked rules need files that exist; the layering
// rules need only the import text). The plugin is loaded so that disable comments naming its rules resolve.
const layeringOnly = (): ESLint =>
  new ESLint({
    cwd: process.cwd(),
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin },
        linterOptions: { reportUnusedDisableDirectives: 'off' },
      },
      ...layerConfigs,
    ],
  });
const eslint = layeringOnly();

async function messagesFor(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${specifier}';\nexport const y = x;\n`, { filePath: file });
  return (result?.messages ?? []).map((m) => m.message);
}

/** A file of each layer, and how an import from it reaches a file of every other layer. */
const SAMPLE_FILE: Record<string, string> = {
  storage: 'src/storage/sample.ts',
  model: 'src/model/sample.ts',
  events: 'src/events/sample.ts',
  commands: 'src/commands/sample.ts',
  projections: 'src/projections/sample.ts',
  read: 'src/read/sample.ts',
  auth: 'src/auth/sample.ts',
  delivery: 'src/delivery/sample.ts',
  services: 'src/services.ts',
  edge: 'src/edge/sample.ts',
  http: 'src/http/sample.ts',
  graphql: 'src/graphql/sample.ts',
  cli: 'src/cli/sample.ts',
};

const specifierTo = (from: string, target: string): string => {
  const prefix = from === 'services' ? './' : '../';
  if (target === 'services') return `${prefix}services.js`;
  if (target === 'main') return `${prefix}main.js`;
  return `${prefix}${target}/sample.js`;
};

describe('when a layer imports a layer above it', () => {
  for (const layer of LAYERS) {
    for (const target of forbiddenFor(layer.name)) {
      it(`${layer.name} → ${target} fails lint with the layering message`, async () => {
        const messages = await messagesFor(SAMPLE_FILE[layer.name] ?? '', specifierTo(layer.name, target));
        expect(messages).toEqual([expect.stringContaining(`${layer.name} must not import ${target}: imports run one way`)]);
      });
    }
  }
});

describe('when a layer imports a layer below it', () => {
  for (const [index, layer] of LAYERS.entries()) {
    const below = LAYERS.slice(0, index)
      .map((l) => l.name)
      .filter((name) => !forbiddenFor(layer.name).includes(name));
    for (const target of below) {
      it(`${layer.name} → ${target} passes`, async () => {
        expect(await messagesFor(SAMPLE_FILE[layer.name] ?? '', specifierTo(layer.name, target))).toEqual([]);
      });
    }
  }
});

describe('the one exception between edges', () => {
  it('http may mount the GraphQL plugin', async () => {
    expect(await messagesFor('src/http/app.ts', '../graphql/plugin.js')).toEqual([]);
  });
  it('graphql must not import http', async () => {
    expect(await messagesFor('src/graphql/plugin.ts', '../http/sample.js')).toEqual([
      expect.stringContaining('graphql must not import http'),
    ]);
  });
  it('cli must not import http (seed fixtures take their schemas from the declarations)', async () => {
    expect(await messagesFor('src/cli/seed/fixtures.ts', '../../http/sample.js')).toEqual([
      expect.stringContaining('cli must not import http'),
    ]);
  });
  it('auth must not import http', async () => {
    expect(await messagesFor('src/auth/sign-in.ts', '../http/validate.js')).toEqual([expect.stringContaining('auth must not import http')]);
  });
});

describe('frozen migrations and the kernel', () => {
  it('a migration importing live code fails lint', async () => {
    expect(await messagesFor('src/storage/migrations/099-sample.ts', '../../projections/catalog-projection.js')).toEqual([
      expect.stringContaining('shipped migrations are frozen'),
    ]);
  });
  it('a migration importing storage code fails lint too', async () => {
    expect(await messagesFor('src/storage/migrations/099-sample.ts', '../pool.js')).toEqual([
      expect.stringContaining('shipped migrations are frozen'),
    ]);
  });
  it('the migrations index may import the migrations beside it', async () => {
    expect(await messagesFor('src/storage/migrations/index.ts', './001-event-store.js')).toEqual([]);
  });
  it('a kernel file importing a layer fails lint', async () => {
    expect(await messagesFor('src/errors.ts', './http/problem.js')).toEqual([
      expect.stringContaining('the kernel (src/*.ts) must not import any layer'),
    ]);
  });
  it('a kernel file may import another kernel file', async () => {
    expect(await messagesFor('src/validation.ts', './errors.js')).toEqual([]);
  });
});

describe('the repository as it stands', () => {
  it('has no back edge in src/', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`));
    expect(problems).toEqual([]);
    // Linting all of src/ takes seconds of CPU: on a shared 2-CPU machine, beyond the 5 s default.
  }, 60_000);
});
