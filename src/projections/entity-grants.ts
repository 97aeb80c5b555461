import type { AccessEvent } from '../events/access.js';
import { accessEvents } from '../events/access.js';
import type { DecodedEvent } from '../events/codec.js';
import type { SqlClient } from '../storage/pool.js';
import type { Projection } from './projection.js';

/**
 * The grants on single entities, one row per entity and subject. A grant replaces the subject's
 * level, a revoke removes the row: replaying the log again ends in the same rows (idempotent).
 */
export const entityGrantsProjection: Projection = {
  name: 'entity_grants',
  tables: ['entity_grants'],
  handles: new Set(accessEvents.map((d) => d.type)),
  async applyBatch(tx: SqlClient, events: readonly DecodedEvent[]): Promise<void> {
    for (const decoded of events) {
      const event = decoded.event as AccessEvent;
      const { entityId, entityKind, subjectType, subjectId } = event.data;
      if (event.type === 'EntityAccessGranted') {
        await tx.query(
          `INSERT INTO entity_grants (entity_id, entity_kind, subject_type, subject_id, level, granted_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (entity_id, subject_type, subject_id) DO UPDATE SET level = EXCLUDED.level, granted_at = EXCLUDED.granted_at`,
          [entityId, entityKind, subjectType, subjectId, event.data.level, decoded.metadata.occurredAt],
        );
      } else {
        await tx.query('DELETE FROM entity_grants WHERE entity_id = $1 AND subject_type = $2 AND subject_id = $3', [
          entityId,
          subjectType,
          subjectId,
        ]);
      }
    }
  },
};
