import type { DecodedEvent } from '../events/codec.js';
import { favoriteEvents, type FavoriteEvent } from '../events/favorite.js';
import { STREAMS } from '../events/streams.js';
import type { SqlClient } from '../storage/pool.js';
import type { Projection } from './projection.js';

/**
 * Each user's favorites, one row per user and entity. Adding what is there keeps it, removing what
 * is not removes nothing: replaying the log again ends in the same rows (idempotent).
 */
export const favoritesProjection: Projection = {
  name: 'favorites',
  tables: ['favorites'],
  handles: new Set(favoriteEvents.map((d) => d.type)),
  async applyBatch(tx: SqlClient, events: readonly DecodedEvent[]): Promise<void> {
    for (const decoded of events) {
      const event = decoded.event as FavoriteEvent;
      const userId = STREAMS.favorites.parse(decoded.streamId);
      const { entityType, entityId } = event.data;
      if (event.type === 'FavoriteAdded') {
        await tx.query(
          `INSERT INTO favorites (user_id, entity_type, entity_id, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (user_id, entity_id) DO NOTHING`,
          [userId, entityType, entityId, decoded.metadata.occurredAt],
        );
      } else {
        await tx.query('DELETE FROM favorites WHERE user_id = $1 AND entity_id = $2', [userId, entityId]);
      }
    }
  },
};
