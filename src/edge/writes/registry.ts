import type { Services } from '../../services.js';
import type { WriteOperations } from './write.js';
import { authProviderWrites } from './auth-providers.js';
import { catalogEntityWrites } from './catalog-entities.js';
import { personalAccessTokenWrites } from './personal-access-tokens.js';
import { userWrites } from './users.js';

/** Every write of the service by kind (audit-log entity types), for REST routes and GraphQL mutations alike. */
function buildWrites(services: Services) {
  return {
    ...catalogEntityWrites(services),
    user: userWrites(services),
    auth_provider: authProviderWrites(services),
    personal_access_token: personalAccessTokenWrites(services),
  };
}

/** The write operations of the service. */
export type Writes = ReturnType<typeof buildWrites>;

const built = new WeakMap<Services, Writes>();

/** The write operations of one kind (an audit-log entity type); a kind with none is a programming error. */
export function writesOfKind(services: Services, kind: string): WriteOperations {
  const writes: Readonly<Record<string, unknown>> = writesOf(services);
  const found = writes[kind];
  if (!found) throw new TypeError(`no writes for kind ${kind}`);
  return found as WriteOperations;
}

/** The write operations on these services, built once, shared by every edge. */
export function writesOf(services: Services): Writes {
  let writes = built.get(services);
  if (!writes) built.set(services, (writes = buildWrites(services)));
  return writes;
}
