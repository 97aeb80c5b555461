import { declaredProjections } from './declared.js';
import type { Projection } from './projection.js';
import { auditLogProjection } from './audit-log.js';
import { authProvidersProjection } from './auth-providers.js';
import { personalAccessTokensProjection } from './personal-access-tokens.js';
import { sessionsProjection } from './sessions.js';
import { runsProjection } from './runs.js';
import { entityGrantsProjection } from './entity-grants.js';
import { favoritesProjection } from './favorites.js';
import { usersProjection } from './users.js';

/** Every projection of the service, by name. */
export const allProjections: readonly Projection[] = [
  // Every declared kind's read model, from its declaration (./declared.ts).
  ...declaredProjections,
  usersProjection,
  sessionsProjection,
  authProvidersProjection,
  personalAccessTokensProjection,
  auditLogProjection,
  entityGrantsProjection,
  favoritesProjection,
  runsProjection,
];

/** A projection by name. */
export function findProjection(name: string): Projection | undefined {
  return allProjections.find((p) => p.name === name);
}
