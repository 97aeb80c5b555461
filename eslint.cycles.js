// No import cycles, type-only imports included: a cycle makes two modules one unit that neither
// can be read, tested or moved without the other. `npm run lint` reports each file on a cycle at the
// import that closes it, with the whole loop; test/unit/import-cycles.unit.spec.ts proves it fires.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** file → the project files it imports (read from disk once per lint run). */
const importsOnDisk = new Map();

/** The file a relative specifier names: `./x.js` is `./x.ts` (or `.tsx`) in the sources. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, path.join(base, 'index.ts')]) {
    if (/\.(ts|tsx|js|mjs)$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function importsOf(file) {
  let imports = importsOnDisk.get(file);
  if (imports) return imports;
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '';
  }
  const { importedFiles } = ts.preProcessFile(text, true, true);
  imports = importedFiles.map((ref) => resolveSpecifier(file, ref.fileName)).filter((target) => target !== undefined);
  importsOnDisk.set(file, imports);
  return imports;
}

/** A path of imports from `start` back to `goal`, or undefined (breadth first: the shortest loop). */
function pathBack(start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of importsOf(file)) {
      if (next === goal) {
        const loop = [file];
        for (let at = previous.get(file); at !== undefined; at = previous.get(at)) loop.unshift(at);
        return loop;
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

const noImportCycle = {
  meta: { type: 'problem', docs: { description: 'no import cycles between project files' }, schema: [] },
  create(context) {
    const file = path.resolve(context.filename);
    const root = context.cwd;
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string') return;
      const target = resolveSpecifier(file, specifier);
      if (!target) return;
      const loop = target === file ? [] : pathBack(target, file);
      if (!loop) return;
      const names = [file, ...loop, file].map((f) => path.relative(root, f));
      context.report({ node, message: `import cycle: ${names.join(' → ')}; move what both need into a module below them` });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** The flat-config entries: the rule over the service's and the web UI's sources. */
export const cycleConfigs = [
  {
    files: ['src/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx'],
    plugins: { cycles: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'cycles/no-import-cycle': 'error' },
  },
];
