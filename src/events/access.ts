import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/**
 * Grants on one entity (docs/contract.md §6, permissions per entity) live in the entity's access
 * stream (`access-<entity id>`): who besides the kind's roles and the owning team may read, write or
 * administer it.
 */
const subject = { entityKind: z.string(), entityId: z.string(), subjectType: z.enum(['user', 'team']), subjectId: z.string() };

/** A user or a team was given a level on one entity (replacing the level it had). */
export const EntityAccessGranted = defineEvent('EntityAccessGranted', z.object({ ...subject, level: z.enum(['read', 'write', 'admin']) }));
/** A user's or a team's grant on one entity was taken away. */
export const EntityAccessRevoked = defineEvent('EntityAccessRevoked', z.object(subject));

/** Every access event. */
export type AccessEvent = EventOf<typeof EntityAccessGranted> | EventOf<typeof EntityAccessRevoked>;

/** The access event definitions. */
export const accessEvents = [EntityAccessGranted, EntityAccessRevoked] as const;
