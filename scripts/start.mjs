#!/usr/bin/env node
// `npm start`: builds what is stale (scripts/build.mjs --if-stale), then runs the built server in
// this same process. One process instead of a `prestart` script and a second node: npm runs one
// lifecycle script and Node starts once (≈0.15 s of every restart on the development machines).
import { buildParts } from './build.mjs';

buildParts([], { ifStale: true });
await import('../dist/src/main.js');
