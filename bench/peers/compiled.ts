import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPOSITORY, type ServiceEntry } from '../commands/sides.js';

/**
 * A bench program written in TypeScript, as plain Node runs it: its types removed (nothing checked
 * here; `npm run typecheck` checks it) into node_modules/.cache, where its packages resolve as they
 * do from this checkout. The peers' sides then run as production would, none through tsx.
 */
export function compiledEntry(file: string): ServiceEntry {
  const out = path.join(REPOSITORY, 'node_modules', '.cache', 'infraledger-bench', `${path.basename(file, '.ts')}.mjs`);
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
  });
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  return { file: out, typescript: false };
}
