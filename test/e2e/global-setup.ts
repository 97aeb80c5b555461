import { execFileSync } from 'node:child_process';

/** The e2e tier runs the built service (server and web assets), so it builds it once before any test starts. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
