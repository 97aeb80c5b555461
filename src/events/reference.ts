import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/**
 * Reference streams (`refs-<kind>-<id>`) record who points at an entity, in the write model. Adding a
 * reference asserts the target's revision; deleting the target asserts its reference stream. Both
 * ride in the same atomic append as the command's own events, so a delete and a concurrent create
 * that references the deleted entity can never both succeed.
 */
const reference = z.object({ referrerKind: z.string(), referrerId: z.string(), field: z.string() });

/** An entity began to point at another. */
export const ReferenceAdded = defineEvent('ReferenceAdded', reference);
/** An entity stopped pointing at another. */
export const ReferenceRemoved = defineEvent('ReferenceRemoved', reference);

/**
 * Everyone pointing at the entity when the stream was compacted: the stream's earlier events are
 * truncated, so readers fold from here (a reference stream stays as long as its live referrers,
 * however many came and went).
 */
export const ReferencesCompacted = defineEvent('ReferencesCompacted', z.object({ referrers: z.array(reference) }));

/** Every reference event. */
export type ReferenceEvent = EventOf<typeof ReferenceAdded> | EventOf<typeof ReferenceRemoved> | EventOf<typeof ReferencesCompacted>;

/** The reference event definitions. */
export const referenceEvents = [ReferenceAdded, ReferenceRemoved, ReferencesCompacted] as const;
