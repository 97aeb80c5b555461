import type { EventMetadata } from '../events/define.js';

/** A user's id; case-insensitive (the SQL fold of a rebuild matches it with `~*`: src/projections/sql-fold.ts). */
export const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The acting user of an event, when it was one (bootstrap and system actions have none). */
export const actorUserId = (metadata: EventMetadata): string | null =>
  metadata.actorId !== null && USER_ID.test(metadata.actorId) ? metadata.actorId : null;
