import { execFileSync } from 'node:child_process';

/** The e2e tier runs the built service, so it builds it once before any test starts. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
