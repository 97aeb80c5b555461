import type { Services } from '../../services.js';
import { authProviderWrites } from './auth-providers.js';
import { catalogEntityWrites } from './catalog-entities.js';
import { personalAccessTokenWrites } from './personal-access-tokens.js';
import { resourceWrites } from './resources.js';
import { userWrites } from './users.js';

/** Every write of the service by kind (audit-log entity types), for REST routes and GraphQL mutations alike. */
function buildWrites(services: Services) {
  return {
    ...catalogEntityWrites(services),
    resource: resourceWrites(services),
    user: userWrites(services),
    auth_provider: authProviderWrites(services),
    personal_access_token: personalAccessTokenWrites(services),
  };
}

/** The write operations of the service. */
export type Writes = ReturnType<typeof buildWrites>;

const built = new WeakMap<Services, Writes>();

/** The write operations on these services, built once, shared by every edge. */
export function writesOf(services: Services): Writes {
  let writes = built.get(services);
  if (!writes) built.set(services, (writes = buildWrites(services)));
  return writes;
}
