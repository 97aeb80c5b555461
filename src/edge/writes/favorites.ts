import { z } from 'zod';
import { favoritesAggregate } from '../../commands/favorite.js';
import { notFound } from '../../errors.js';
import { DECLARED_ENTITIES, declarationOf } from '../../model/catalog.js';
import { ensureAllowed, type PermissionResource } from '../../model/permissions.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { mayReadNow } from '../history.js';
import { runCommand, type WriteCall, type Written } from './write.js';

/** The projection a favorite's answer waits for. */
export const FAVORITES_PROJECTION = 'favorites';

const KINDS = DECLARED_ENTITIES.map((entity) => entity.kind);

/** The entity a favorite names, from the path (REST) or the arguments (GraphQL). */
export const favoriteTarget = z.strictObject({
  entityType: z.enum(KINDS as [string, ...string[]], { message: `must be one of ${KINDS.join(', ')}` }),
  id: canonicalUuid,
});

/**
 * Favorites (docs/contract.md §2): each signed-in user stars and unstars entities they may read, for
 * themselves only. Starring twice, or unstarring what is not starred, changes nothing. The same
 * operations serve REST and GraphQL.
 */
export function favoriteWrites(services: Services) {
  async function command(call: WriteCall, input: unknown, type: 'Add' | 'Remove', where: string): Promise<Written> {
    const principal = authorize(call.request);
    const { entityType, id } = parseInput(favoriteTarget, input, where);
    const entity = declarationOf(entityType);
    if (!entity) throw notFound(`${entityType} not found`);
    // Unstarring needs no read: a star on something no longer readable can still be taken away.
    if (type === 'Add') {
      ensureAllowed(principal.permissions, `${entity.kind as PermissionResource}:read`);
      if (!(await mayReadNow(services, principal, entity, id))) throw notFound(`${entityType.replaceAll('_', ' ')} not found`);
    }
    return runCommand(services, call, favoritesAggregate, [FAVORITES_PROJECTION], principal.userId, {
      type,
      data: { entityType, entityId: id },
    });
  }
  return {
    /** Stars the entity `input` names (`where` says where it came from: `path`, `arguments`). */
    add: (call: WriteCall, input: unknown, where = 'path') => command(call, input, 'Add', where),
    /** Unstars it. */
    remove: (call: WriteCall, input: unknown, where = 'path') => command(call, input, 'Remove', where),
  };
}
