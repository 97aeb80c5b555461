import { z } from 'zod';
import type { EventCodec } from '../events/codec.js';
import type { EventStore } from '../events/store/port.js';
import { streamName } from '../events/streams.js';
import type { EntityDeclaration } from '../model/entity.js';
import type { CatalogRow } from '../projections/catalog-projection.js';
import { projectionOf } from '../projections/declared.js';

/**
 * An entity as it was (docs/contract.md §2, "History you can query"): its events folded up to a
 * revision, a log position or a time, with the very function its projection builds its row with, so
 * the answer has exactly the fields (and the redactions) of today's row. Nothing is stored for it:
 * the events are the history.
 */

/** Where in an entity's history to stop: after its revision `n`, at a log position, or at a time. */
export type AsOf = { readonly revision: number } | { readonly position: bigint } | { readonly time: Date };

/** An entity's row as of a point, and where that point fell in its history. */
export interface RowAsOf {
  readonly row: CatalogRow;
  /** The entity's revision then (its `revision` field). */
  readonly revision: number;
  /** The log position of the last event folded. */
  readonly position: bigint;
  /** When that event happened. */
  readonly occurredAt: string;
}

/** What folding needs: the store and the codec that decrypts and upcasts. */
export interface AsOfDeps {
  readonly store: EventStore;
  readonly codec: EventCodec;
}

const POSITION = /^\d{1,19}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The `at` argument of REST and GraphQL: a log position (digits, as `X-Position` gives it) or an
 * ISO-8601 time with a zone (`2026-11-20T09:00:00Z`).
 */
export const atInput = z
  .string()
  .refine(
    (text) => POSITION.test(text) || (TIME.test(text) && !Number.isNaN(Date.parse(text))),
    'must be a log position or an ISO-8601 time with a zone, as 2026-11-20T09:00:00Z',
  )
  .transform((text): AsOf => (POSITION.test(text) ? { position: BigInt(text) } : { time: new Date(text) }));

/** A revision to read an entity at: its first is 1. */
export const revisionInput = z.coerce
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(2 ** 31 - 1);

/**
 * The entity's row as of the point; undefined when it did not exist yet then (or was deleted by
 * then: a deleted entity has no fields to show), or never had the revision asked.
 */
export async function rowAsOf(deps: AsOfDeps, entity: EntityDeclaration, id: string, asOf: AsOf): Promise<RowAsOf | undefined> {
  // The very projection that builds the kind's row folds it here (every declared kind has one).
  const folder = projectionOf(entity);
  let folded: RowAsOf | undefined;
  let row: CatalogRow | undefined;
  for (const recorded of await deps.store.readStream(streamName(entity.kind).build(id))) {
    if ('position' in asOf && recorded.position > asOf.position) break;
    if ('revision' in asOf && Number(recorded.streamRevision) + 1 > asOf.revision) break;
    const decoded = deps.codec.decode(recorded);
    if ('time' in asOf && new Date(decoded.metadata.occurredAt).getTime() > asOf.time.getTime()) break;
    row = folder.evolve(row, decoded);
    if (row) folded = { row, revision: row.revision, position: recorded.position, occurredAt: decoded.metadata.occurredAt };
  }
  if (!folded || folded.row.deleted_at != null) return undefined;
  // A revision it has not reached is one it never had, not its latest.
  if ('revision' in asOf && folded.revision !== asOf.revision) return undefined;
  return folded;
}

/** Each link table of the entity → the ids the folded row held in it, in order. */
export function linksAsOf(entity: EntityDeclaration, row: CatalogRow): Map<string, readonly string[]> {
  return new Map(
    projectionOf(entity).links.map((link) => {
      const ids = row[link.field];
      return [link.table, Array.isArray(ids) ? ids.map(String) : []];
    }),
  );
}
