#!/usr/bin/env node
// What the sign-in page (/login, or any first page load) downloads: the entry script of the built
// dist/web/index.html and the chunks it preloads (its static imports), raw and as served compressed
// (the .gz and .br files the build wrote). Prints one line per file and the totals.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'web');
const html = readFileSync(path.join(root, 'index.html'), 'utf8');
const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const size = (file) => (existsSync(file) ? statSync(file).size : 0);
const totals = { raw: 0, gzip: 0, brotli: 0 };
for (const url of files) {
  const file = path.join(root, url);
  const row = { raw: size(file), gzip: size(`${file}.gz`) || size(file), brotli: size(`${file}.br`) || size(file) };
  for (const key of Object.keys(totals)) totals[key] += row[key];
  console.log(`${url}\traw ${row.raw}\tgzip ${row.gzip}\tbrotli ${row.brotli}`);
}
console.log(`sign-in page total\traw ${totals.raw}\tgzip ${totals.gzip}\tbrotli ${totals.brotli}`);
