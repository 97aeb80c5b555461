import { diffFields, type FieldChange } from '../projections/audit-history.js';

/** Bookkeeping that changes with every event: not a difference anyone asked about. */
const BOOKKEEPING = new Set(['revision', 'updatedAt']);

const fieldsOf = (view: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(view).filter(([key]) => !BOOKKEEPING.has(key)));

/**
 * The fields that differ between two views of one entity (docs/contract.md §2, "History you can
 * query"), as the audit log words a change: by field, one level into objects
 * (`configuration.awsRegion`), sorted by field; write-only values are `********` on both sides, so a
 * changed secret does not show.
 */
export function revisionDiff(from: Readonly<Record<string, unknown>>, to: Readonly<Record<string, unknown>>): FieldChange[] {
  const before = fieldsOf(from);
  const after = fieldsOf(to);
  // A field present on one side only (none today: both views have every key) still shows.
  for (const key of Object.keys(before)) if (!(key in after)) after[key] = undefined;
  return diffFields(before, after).map((change) => ({
    field: change.field,
    before: change.before ?? null,
    after: change.after ?? null,
  }));
}
