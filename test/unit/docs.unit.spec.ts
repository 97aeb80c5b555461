import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Every Markdown file a reader opens: the root pages and everything under docs/. */
function markdownFiles(): string[] {
  const found = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md'].map((name) => path.join(ROOT, name));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) found.push(full);
    }
  };
  walk(path.join(ROOT, 'docs'));
  return found;
}

/** The text outside fenced code blocks and inline code (where brackets are not links). */
const prose = (markdown: string): string => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '``');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('the documentation', () => {
  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^(https?:|mailto:)/.test(target)) continue;
        const [where = '', anchor] = target.split('#');
        const resolved = where === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(where));
        const name = `${path.relative(ROOT, file)} → ${target}`;
        if (!existsSync(resolved)) {
          broken.push(`${name}: no such file`);
          continue;
        }
        if (
          anchor !== undefined &&
          statSync(resolved).isFile() &&
          resolved.endsWith('.md') &&
          !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)
        ) {
          broken.push(`${name}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names in docs/adding-a-field.md the latest migration, so "the next free number" stays true', () => {
    const latest = readdirSync(path.join(ROOT, 'src', 'storage', 'migrations'))
      .map((name) => /^(\d{3})-/.exec(name)?.[1])
      .filter((number): number is string => number !== undefined)
      .sort()
      .at(-1);
    const named = /\(`(\d{3})` at the time of writing/.exec(readFileSync(path.join(ROOT, 'docs', 'adding-a-field.md'), 'utf8'))?.[1];
    expect(named).toBe(latest);
  });

  it('keeps the benchmarks page to the current figures: at most 300 lines, the journal under docs/benchmarks/', () => {
    expect(readFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('keeps the README a newcomer’s page: at most 200 lines', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200);
  });

  it('lists in docs/configuration.md exactly the variables the service reads', () => {
    const table = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    const documented = table.flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]));
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
