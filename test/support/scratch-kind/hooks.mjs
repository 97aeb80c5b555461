/**
 * Module hooks for the scratch-kind run (./run.ts): the service's list of catalog kinds
 * (src/model/catalog-kinds.ts) resolves to ./catalog-kinds.ts, which is the real list plus one
 * kind only this test declares. Nothing else of the service changes: every registry then derives
 * from the longer list, which is what the test proves. Registered after tsx, so tsx has already
 * mapped `.js` specifiers to their `.ts` files when this hook sees them.
 */
import { URL } from 'node:url';

const REAL = '/src/model/catalog-kinds.ts';
const SCRATCH = new URL('./catalog-kinds.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.endsWith(REAL) && context.parentURL !== SCRATCH) return { ...resolved, url: SCRATCH, shortCircuit: true };
  return resolved;
}
