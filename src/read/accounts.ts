import { columnOf, type StoredValue } from '../model/entity.js';
import { shownFields, type AccountDeclaration } from '../model/account.js';

/** The columns an account's view reads: its id, every shown field and state fact, and the bookkeeping. */
export const accountViewColumns = (account: AccountDeclaration): string[] => [
  'id',
  ...shownFields(account).map(([name]) => columnOf(name)),
  'revision',
  ...(account.creator ? ['creator_id'] : []),
  'created_at',
  'updated_at',
];

/** The timestamp columns of a view (read as Date, answered as ISO text). */
const timestampFields = (account: AccountDeclaration): ReadonlySet<string> =>
  new Set(shownFields(account).flatMap(([name, field]) => ('timestamp' in field && field.timestamp ? [name] : [])));

const isoOf = (value: unknown): string | null => (value == null ? null : new Date(value as string | Date).toISOString());

/** A shown field's value in a view: a timestamp as ISO text, the rest as stored. */
type ViewValue<F> = F extends { readonly timestamp: true }
  ? F extends { readonly nullable: true }
    ? string | null
    : string
  : StoredValue<F>;

/** The names among `F` a view shows (columns, neither hidden nor secret). */
type Shown<F> = {
  [K in keyof F]: F[K] extends { readonly column: false } | { readonly hidden: true } | { readonly secret: true } ? never : K;
}[keyof F];

/** An account as the REST API answers it (../model/account.ts). */
export type AccountView<A extends AccountDeclaration> = { id: string; revision: number } & (A extends { readonly creator: true }
  ? { creatorId: string | null }
  : unknown) & {
    [K in Shown<A['fields']>]: ViewValue<A['fields'][K]>;
  } & { [K in Shown<A['state']>]: ViewValue<A['state'][K]> } & { createdAt: string; updatedAt: string };

/**
 * An account as the REST API answers it: the id, each shown field under its API name (timestamps
 * as ISO text), the revision, creator and timestamps. Built once per account, used per row.
 */
export function accountView<A extends AccountDeclaration>(account: A): (row: object) => AccountView<A> {
  const fields = shownFields(account).map(([name]) => [name, columnOf(name)] as const);
  const timestamps = timestampFields(account);
  return (value) => {
    const row = value as Readonly<Record<string, unknown>>;
    const view: Record<string, unknown> = { id: row.id };
    for (const [name, column] of fields) view[name] = timestamps.has(name) ? isoOf(row[column]) : row[column];
    view.revision = row.revision;
    if (account.creator) view.creatorId = row.creator_id;
    view.createdAt = isoOf(row.created_at);
    view.updatedAt = isoOf(row.updated_at);
    // Each key is set above from the declaration the type is computed from.
    return view as AccountView<A>;
  };
}
