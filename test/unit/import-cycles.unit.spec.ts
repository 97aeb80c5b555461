import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cycleConfigs } from '../../eslint.cycles.js';

// Lints scratch files on disk with the cycle rule only: the rule reads the files an import names.
let root: string;
const lint = async (file: string): Promise<string[]> => {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser } }, ...cycleConfigs],
  });
  const [result] = await eslint.lintFiles([path.join(root, file)]);
  return (result?.messages ?? []).map((m) => m.message);
};

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'infraledger-cycles-'));
  await mkdir(path.join(root, 'src', 'model'), { recursive: true });
  const files: Record<string, string> = {
    'src/model/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
    'src/model/b.ts': "import { c } from '../c.js';\nexport interface B { c: typeof c }\n",
    'src/c.ts': "import type { A } from './model/a.js';\nexport const c = 1;\nexport type Also = A;\n",
    'src/leaf.ts': 'export const leaf = 1;\n',
    'src/user.ts': "import { leaf } from './leaf.js';\nexport const user = leaf;\n",
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(root, name), text);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the import-cycle rule', () => {
  it('reports a loop through three files, type-only imports included, naming every step', async () => {
    expect(await lint('src/model/a.ts')).toEqual([
      'import cycle: src/model/a.ts → src/model/b.ts → src/c.ts → src/model/a.ts; move what both need into a module below them',
    ]);
    expect(await lint('src/c.ts')).toHaveLength(1);
  });

  it('passes imports that do not come back', async () => {
    expect(await lint('src/user.ts')).toEqual([]);
    expect(await lint('src/leaf.ts')).toEqual([]);
  });
});
