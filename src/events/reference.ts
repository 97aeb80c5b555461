import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/**
 * Reference streams (`refs-<kind>-<id>`) record who points at an entity, in the write model. Adding a
 * reference asserts the target's revision; deleting the target asserts its reference stream. Both
 * ride in the same atomic append as the command's own events, so a delete and a concurrent create
 * that references the deleted entity can never both succeed.
 */
const reference = z.object({ referrerKind: z.string(), referrerId: z.string(), field: z.string() });

export const ReferenceAdded = defineEvent('ReferenceAdded', reference);
export const ReferenceRemoved = defineEvent('ReferenceRemoved', reference);

export type ReferenceEvent = EventOf<typeof ReferenceAdded> | EventOf<typeof ReferenceRemoved>;

export const referenceEvents = [ReferenceAdded, ReferenceRemoved] as const;
