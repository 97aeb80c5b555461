import type { EventMetadata } from '../events/define.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The acting user of an event, when it was one (bootstrap and system actions have none). */
export const actorUserId = (metadata: EventMetadata): string | null =>
  metadata.actorId !== null && UUID.test(metadata.actorId) ? metadata.actorId : null;
