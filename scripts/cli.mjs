#!/usr/bin/env node
// `npm run projections | seed | keygen | signing-key -- …`: the command-line tools as built
// (dist/src/cli), the server part built first when stale, as `npm start` does. Production paths run
// compiled JavaScript: no TypeScript loader starts (≈2 s a run) and nothing needs the dev
// dependencies. What the build says goes to stderr, so a tool's stdout (a key, a report) stays its own.
import { buildParts } from './build.mjs';

const TOOLS = ['projections', 'seed', 'keygen', 'signing-key'];

// The tool's own arguments follow its name; it reads them from process.argv.slice(2).
const [tool = ''] = process.argv.splice(2, 1);
if (!TOOLS.includes(tool)) {
  process.stderr.write(`usage: node scripts/cli.mjs <${TOOLS.join(' | ')}> [arguments]\n`);
  process.exit(2);
}
await buildParts(['server'], { ifStale: true, report: process.stderr });
await import(`../dist/src/cli/${tool}.js`);
