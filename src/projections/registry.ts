import type { Projection } from './projection.js';
import { templatesProjection } from './templates.js';

/** Every projection of the service, by name. */
export const allProjections: readonly Projection[] = [templatesProjection];

export function findProjection(name: string): Projection | undefined {
  return allProjections.find((p) => p.name === name);
}
