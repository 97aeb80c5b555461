import { AppError, notFound } from '../errors.js';
import type { EntityDeclaration } from '../model/entity.js';
import { levelIncludes, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { rowAsOf, type AsOf, type RowAsOf } from '../read/as-of.js';
import { declaredReader, type CatalogView } from '../read/catalog.js';
import { readableRows } from '../read/entity-access.js';
import { revisionDiff } from '../read/revision-diff.js';
import type { FieldChange } from '../projections/audit-history.js';
import type { Services } from '../services.js';
import { callerLevel } from './entity-authority.js';

/**
 * History you can query (docs/contract.md §2): an entity as of a revision, position or time, and
 * the diff of two revisions, for REST and GraphQL alike. Who may see an entity's past is who may see
 * it now (the kind's read, and for owned secrets and integrations their owners' rule), so an entity
 * the caller may not read, or that is deleted, answers 404 whatever the point asked.
 */

/** The diff of two revisions: both views and the fields that differ. */
export interface RevisionDiffView {
  readonly from: CatalogView;
  readonly to: CatalogView;
  readonly changes: readonly FieldChange[];
}

const readers = new Map<string, ReturnType<typeof declaredReader>>();
const readerOf = (entity: EntityDeclaration): ReturnType<typeof declaredReader> => {
  let reader = readers.get(entity.kind);
  if (!reader) readers.set(entity.kind, (reader = declaredReader(entity)));
  return reader;
};

const labelOf = (entity: EntityDeclaration): string => entity.kind.replaceAll('_', ' ');

/**
 * Whether the caller may read the entity `id` now: it exists (not deleted) and the kind's read
 * reaches it (only private-when-owned kinds ask for its owner). The kind's read is the caller's to
 * have checked.
 */
export async function mayReadNow(services: Services, principal: Principal, entity: EntityDeclaration, id: string): Promise<boolean> {
  const view = await readerOf(entity).find(services.db, id);
  if (!view) return false;
  const resource = entity.kind as PermissionResource;
  if (readableRows(principal, resource, entity.table) === undefined) return true;
  return levelIncludes((await callerLevel(services, principal, { resource, table: entity.table }, id)) ?? null, 'read');
}

/** The entity's folded row as of the point, for a caller who may read it now; 404 otherwise or when it did not exist then. */
export async function readableRowAsOf(
  services: Services,
  principal: Principal,
  entity: EntityDeclaration,
  id: string,
  point: AsOf,
): Promise<RowAsOf> {
  if (!(await mayReadNow(services, principal, entity, id))) throw notFound(`${labelOf(entity)} not found`);
  if ('position' in point) await ensureNotAhead(services, point.position);
  const folded = await rowAsOf(services, entity, id, point);
  if (!folded) {
    throw new AppError('NOT_FOUND', `${labelOf(entity)} ${id} did not exist ${describe(point)}`, { details: { notThen: describe(point) } });
  }
  return folded;
}

/**
 * A position beyond the log's head names no state yet: a 400, as `X-Min-Position` is (rather than
 * today's state, which a later event could make a different answer for the same position).
 */
async function ensureNotAhead(services: Services, position: bigint): Promise<void> {
  const head = (await services.store.lastPosition()) ?? 0n;
  if (position <= head) return;
  throw new AppError(
    'POSITION_AHEAD',
    `at ${position} is beyond the newest position of the event log (${head}); send a position the service returned`,
    {
      errors: [{ field: 'at', message: `must not be beyond the newest position, ${head}` }],
      details: { head: String(head) },
    },
  );
}

/** Whether an error says the entity exists but did not at the point asked (not that it cannot be read). */
export const isNotThen = (error: unknown): boolean =>
  error instanceof AppError && error.code === 'NOT_FOUND' && typeof error.details.notThen === 'string';

const describe = (point: AsOf): string =>
  'revision' in point
    ? `at revision ${point.revision}`
    : 'position' in point
      ? `at position ${point.position}`
      : `at ${point.time.toISOString()}`;

/** The entity as of the point, in the REST view's shape. */
export async function entityAsOf(
  services: Services,
  principal: Principal,
  entity: EntityDeclaration,
  id: string,
  point: AsOf,
): Promise<CatalogView> {
  return readerOf(entity).present((await readableRowAsOf(services, principal, entity, id, point)).row);
}

/** Two revisions of the entity and the fields that differ between them. */
export async function entityRevisionDiff(
  services: Services,
  principal: Principal,
  entity: EntityDeclaration,
  id: string,
  from: number,
  to: number,
): Promise<RevisionDiffView> {
  const [before, after] = await Promise.all([
    entityAsOf(services, principal, entity, id, { revision: from }),
    entityAsOf(services, principal, entity, id, { revision: to }),
  ]);
  return { from: before, to: after, changes: revisionDiff(before, after) };
}
