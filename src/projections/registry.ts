import type { Projection } from './projection.js';
import { auditLogProjection } from './audit-log.js';
import { authProvidersProjection } from './auth-providers.js';
import { personalAccessTokensProjection } from './personal-access-tokens.js';
import { sessionsProjection } from './sessions.js';
import { integrationsProjection } from './integrations.js';
import { secretsProjection } from './secrets.js';
import { sourceCodeVersionsProjection } from './source-code-versions.js';
import { sourceCodesProjection } from './source-codes.js';
import { executorsProjection } from './executors.js';
import { resourcesProjection } from './resources.js';
import { runsProjection } from './runs.js';
import { storagesProjection } from './storages.js';
import { workspacesProjection } from './workspaces.js';
import { teamsProjection } from './teams.js';
import { webhooksProjection } from './webhooks.js';
import { entityGrantsProjection } from './entity-grants.js';
import { favoritesProjection } from './favorites.js';
import { templatesProjection } from './templates.js';
import { usersProjection } from './users.js';

/** Every projection of the service, by name. */
export const allProjections: readonly Projection[] = [
  templatesProjection,
  usersProjection,
  sessionsProjection,
  authProvidersProjection,
  personalAccessTokensProjection,
  auditLogProjection,
  integrationsProjection,
  secretsProjection,
  workspacesProjection,
  teamsProjection,
  webhooksProjection,
  entityGrantsProjection,
  favoritesProjection,
  sourceCodesProjection,
  sourceCodeVersionsProjection,
  storagesProjection,
  executorsProjection,
  resourcesProjection,
  runsProjection,
];

/** A projection by name. */
export function findProjection(name: string): Projection | undefined {
  return allProjections.find((p) => p.name === name);
}
