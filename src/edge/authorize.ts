import type { FastifyRequest } from 'fastify';
import type { Principal } from '../model/principal.js';
import { ensureAllowed, type Permission } from '../model/permissions.js';
import { AppError } from '../errors.js';

/** The message docs/contract.md §4 fixes for a request without a bearer token (REST uses it too). */
export const NOT_AUTHENTICATED = 'Not authenticated. Please provide a valid bearer token in the Authorization header.';

const principals = new WeakMap<FastifyRequest, Principal>();

/** Set once per request by the authentication hook. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

/** The caller, when the request carried a valid bearer token. */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/**
 * The one permission check of the REST API: the signed-in caller, who must hold `permission` (when
 * given). 401 without a caller, 403 naming the missing permission otherwise.
 */
export function authorize(request: FastifyRequest, permission?: Permission): Principal {
  const principal = principals.get(request);
  if (!principal) throw new AppError('UNAUTHENTICATED', NOT_AUTHENTICATED);
  if (permission) ensureAllowed(principal.permissions, permission);
  return principal;
}
