import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/**
 * A user's favorites (docs/contract.md §2, "Favorites") live in their favorites stream
 * (`favorites-<user id>`): the entities they starred, by kind and id.
 */
const entity = { entityType: z.string(), entityId: z.string() };

/** The user starred an entity. */
export const FavoriteAdded = defineEvent('FavoriteAdded', z.object(entity));
/** The user took the star away. */
export const FavoriteRemoved = defineEvent('FavoriteRemoved', z.object(entity));

/** Every favorites event. */
export type FavoriteEvent = EventOf<typeof FavoriteAdded> | EventOf<typeof FavoriteRemoved>;

/** The favorites event definitions. */
export const favoriteEvents = [FavoriteAdded, FavoriteRemoved] as const;
