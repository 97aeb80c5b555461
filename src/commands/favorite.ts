import { AppError } from '../errors.js';
import type { FavoriteEvent } from '../events/favorite.js';
import { defineAggregate } from './decider.js';

/** The entity a favorite names (the edge has checked it exists and the caller may read it). */
export interface FavoriteRef {
  readonly entityType: string;
  readonly entityId: string;
}

/** What a user can do with their favorites. */
export type FavoriteCommand =
  { readonly type: 'Add'; readonly data: FavoriteRef } | { readonly type: 'Remove'; readonly data: FavoriteRef };

/** One user's favorites, by `entityType:entityId`. */
export interface FavoritesState {
  readonly status: 'active';
  readonly starred: ReadonlySet<string>;
}

const keyOf = (ref: FavoriteRef): string => `${ref.entityType}:${ref.entityId}`;

/** Favorites one user may keep: a list to pick from, not a second catalog. */
export const MAX_FAVORITES = 1000;

/** A user's favorites: starring what is starred, or unstarring what is not, writes nothing. */
export const favoritesAggregate = defineAggregate<FavoriteCommand, FavoriteEvent, FavoritesState>('favorites', {
  initialState: { status: 'active', starred: new Set() },
  decide(command, state) {
    const starred = state.starred.has(keyOf(command.data));
    if (command.type === 'Add') {
      if (starred) return [];
      if (state.starred.size >= MAX_FAVORITES) {
        throw new AppError('UNPROCESSABLE', `at most ${MAX_FAVORITES} favorites: remove one first`, {
          errors: [{ field: 'id', message: `at most ${MAX_FAVORITES} favorites` }],
        });
      }
      return [{ type: 'FavoriteAdded', data: command.data }];
    }
    return starred ? [{ type: 'FavoriteRemoved', data: command.data }] : [];
  },
  evolve(state, event) {
    const starred = new Set(state.starred);
    if (event.type === 'FavoriteAdded') starred.add(keyOf(event.data));
    else starred.delete(keyOf(event.data));
    return { status: 'active', starred };
  },
});
