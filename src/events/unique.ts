import { z } from 'zod';
import { defineEvent, type EventOf } from './define.js';

/**
 * Reservation streams (`unique-<key>`) make uniqueness hold in the write model under concurrency:
 * whoever appends the reservation first owns the value; everyone else sees it taken.
 */
const reservation = z.object({ key: z.string(), ownerStreamId: z.string() });

/** A unique value was reserved for a stream. */
export const UniqueValueReserved = defineEvent('UniqueValueReserved', reservation);
/** A unique value was released. */
export const UniqueValueReleased = defineEvent('UniqueValueReleased', reservation);

/** Every reservation event. */
export type UniqueValueEvent = EventOf<typeof UniqueValueReserved> | EventOf<typeof UniqueValueReleased>;

/** The reservation event definitions. */
export const uniqueEvents = [UniqueValueReserved, UniqueValueReleased] as const;
