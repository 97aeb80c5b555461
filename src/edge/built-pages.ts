import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the pages built into the service (the web UI, GraphiQL) share: where their builds live and
 * the security policy they are served with.
 */

/**
 * The package root, found from this file rather than the working directory: the built server runs
 * from dist/src/http, the integration tests from src/http.
 */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new TypeError(`no package.json above ${from}`);
  }
}

type Widened = 'style-src' | 'img-src' | 'font-src';

/** A Content-Security-Policy allowing only the service's own origin; `widen` adds sources to single directives. */
export function selfOnlyPolicy(widen: Partial<Record<Widened, string>> = {}): string {
  const directives: [string, string][] = [
    ['default-src', "'self'"],
    ['script-src', "'self'"],
    ['style-src', "'self'"],
    ['img-src', "'self'"],
    ['font-src', "'self'"],
    ['connect-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'self'"],
    ['form-action', "'self'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives
    .map(([name, value]) => {
      const extra = widen[name as Widened];
      return extra ? `${name} ${value} ${extra}` : `${name} ${value}`;
    })
    .join('; ');
}
