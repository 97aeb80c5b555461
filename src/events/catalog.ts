import type { EventDefinition } from './define.js';
import { authProviderEvents } from './auth-provider.js';
import { identityEvents } from './identity.js';
import { integrationEvents } from './integration.js';
import { secretEvents } from './secret.js';
import { sourceCodeVersionEvents } from './source-code-version.js';
import { sourceCodeEvents } from './source-code.js';
import { executorEvents } from './executor.js';
import { resourceEvents } from './resource.js';
import { storageEvents } from './storage.js';
import { workspaceEvents } from './workspace.js';
import { teamEvents } from './team.js';
import { webhookEvents } from './webhook.js';
import { accessEvents } from './access.js';
import { favoriteEvents } from './favorite.js';
import { personalAccessTokenEvents } from './personal-access-token.js';
import { referenceEvents } from './reference.js';
import { templateEvents } from './template.js';
import { uniqueEvents } from './unique.js';

/** Every event type the service writes. The codec refuses any other. */
export const allEventDefinitions: readonly EventDefinition[] = [
  ...uniqueEvents,
  ...referenceEvents,
  ...templateEvents,
  ...identityEvents,
  ...authProviderEvents,
  ...personalAccessTokenEvents,
  ...integrationEvents,
  ...secretEvents,
  ...workspaceEvents,
  ...teamEvents,
  ...webhookEvents,
  ...accessEvents,
  ...favoriteEvents,
  ...sourceCodeEvents,
  ...sourceCodeVersionEvents,
  ...storageEvents,
  ...executorEvents,
  ...resourceEvents,
];
