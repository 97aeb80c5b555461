import { DECLARED_ENTITIES } from '../model/catalog.js';
import { declaredEvents } from './declared.js';
import type { EventDefinition } from './define.js';
import { authProviderEvents } from './auth-provider.js';
import { identityEvents } from './identity.js';
import { accessEvents } from './access.js';
import { favoriteEvents } from './favorite.js';
import { personalAccessTokenEvents } from './personal-access-token.js';
import { referenceEvents } from './reference.js';
import { uniqueEvents } from './unique.js';

/** Every event type the service writes. The codec refuses any other. */
export const allEventDefinitions: readonly EventDefinition[] = [
  ...uniqueEvents,
  ...referenceEvents,
  ...identityEvents,
  ...authProviderEvents,
  ...personalAccessTokenEvents,
  ...accessEvents,
  ...favoriteEvents,
  // Every declared kind's, from its declaration (./declared.ts).
  ...DECLARED_ENTITIES.flatMap(declaredEvents),
];
