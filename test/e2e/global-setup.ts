import { execFileSync } from 'node:child_process';

/**
 * The e2e tier runs the built service (server and web assets), so it builds it once before any test
 * starts — as `npm start` does: vitest sets NODE_ENV=test, and Vite would then bundle React's
 * development build (its dev-only console warnings, a larger and slower page) instead of the one users get.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
