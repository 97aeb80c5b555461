import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

/** Every TypeScript file of src/. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The files of src/ a file imports statically (`import`, `import type`, `export … from`), by path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)) {
    if (specifier === undefined) continue;
    found.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
  }
  return found;
}

/** The strongly connected components of more than one file (Tarjan): each is an import cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const lows = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexes.set(node, index);
    lows.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexes.has(next)) {
        visit(next);
        lows.set(node, Math.min(lows.get(node) ?? 0, lows.get(next) ?? 0));
      } else if (onStack.has(next)) {
        lows.set(node, Math.min(lows.get(node) ?? 0, indexes.get(next) ?? 0));
      }
    }
    if (lows.get(node) !== indexes.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(path.relative(SRC, member));
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return found;
}

describe('the imports of src/', () => {
  it('form no cycle, type-only imports included (each file can be read before the files that use it)', () => {
    const graph = new Map(sources().map((file) => [file, importsOf(file)]));
    expect(cycles(graph)).toEqual([]);
  });
});
