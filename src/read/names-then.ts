import { sql } from 'kysely';
import { declarationOf, DECLARED_ENTITIES } from '../model/catalog.js';
import { allows, RESOURCES, type Permission, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { NAME_FIELDS, nameOf, type FieldChange } from '../projections/audit-history.js';
import type { Db } from '../storage/kysely.js';
import { readableRows } from './entity-access.js';

/**
 * The names an audit entry's references had when it was written (docs/contract.md §7): an entry
 * that set `templateId` shows the template as it was then named, not as it is named now. Names come
 * from the audit log itself: the value a name field had at a position is the `before` of its first
 * change after that position, else its value now (`audit_entities`). Only kinds the caller may read
 * are named, and owned secrets and integrations only when the per-entity rule lets the caller see them.
 */

/** What an entry needs for its references to be named. */
export interface EntryOfReferences {
  readonly entityType: string;
  readonly position: number | string;
  readonly diff: readonly FieldChange[];
}

/** The kind each reference field names, by the entity kind that holds it (declared once, in src/model). */
const TARGETS: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(
  DECLARED_ENTITIES.map((entity) => {
    const targets = new Map<string, string>([['creatorId', 'user']]);
    for (const [name, field] of Object.entries(entity.fields))
      if (field.kind === 'id' || field.kind === 'idList') targets.set(name, field.target);
    return [entity.kind, targets];
  }),
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const idsIn = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((id): id is string => typeof id === 'string' && UUID.test(id));

/** The references of one entry: each id with the kind it names. */
function referencesOf(entry: EntryOfReferences): { kind: string; id: string }[] {
  const targets = TARGETS.get(entry.entityType);
  if (!targets) return [];
  return entry.diff.flatMap((change) => {
    const kind = targets.get(change.field);
    return kind ? [...idsIn(change.before), ...idsIn(change.after)].map((id) => ({ kind, id: id.toLowerCase() })) : [];
  });
}

const isResource = (kind: string): kind is PermissionResource => (RESOURCES as readonly string[]).includes(kind);

/** Of `ids` of a private-when-owned kind, those the caller may read now (the per-entity rule, in SQL). */
async function readableOf(db: Db, principal: Principal, kind: PermissionResource, ids: readonly string[]): Promise<Set<string>> {
  const rule = readableRows(principal, kind, 't');
  const table = declarationOf(kind)?.table;
  if (rule === undefined || table === undefined) return new Set(ids);
  const { rows } = await sql<{ id: string }>`SELECT t.id FROM ${sql.table(table)} t
    WHERE t.id = ANY(${[...ids]}::uuid[]) AND ${rule}`.execute(db);
  return new Set(rows.map((row) => row.id));
}

// Per reference: the entity's fields now, and each name field's value before its first change after
// the entry's position (the value it had then). One statement for a page of entries.
const NAMES_THEN = (types: string[], ids: string[], positions: string[]) => sql<{
  n: string;
  fields: Record<string, unknown> | null;
  later: Record<string, unknown> | null;
}>`SELECT k.n::text AS n, e.fields,
    (SELECT jsonb_object_agg(x.field, x.before) FROM (
       SELECT DISTINCT ON (d->>'field') d->>'field' AS field, d->'before' AS before
       FROM audit_log a CROSS JOIN LATERAL jsonb_array_elements(a.diff) d
       WHERE a.entity_type = k.t AND a.entity_id = k.i AND a.position > k.p AND d->>'field' IN (${sql.join([...NAME_FIELDS])})
       ORDER BY d->>'field', a.position) x) AS later
  FROM unnest(${types}::text[], ${ids}::text[], ${positions}::bigint[]) WITH ORDINALITY AS k(t, i, p, n)
  JOIN audit_entities e ON e.entity_type = k.t AND e.entity_id = k.i`;

/**
 * For each entry, its references' names as of its position (id → name), for what the caller may read.
 * A reference the log has never seen, or the caller may not read, is left out (the UI shows its id).
 */
export async function namesThen(db: Db, principal: Principal, entries: readonly EntryOfReferences[]): Promise<Record<string, string>[]> {
  const permissions: readonly Permission[] = principal.permissions;
  const wanted = entries.map((entry) =>
    referencesOf(entry).filter(({ kind }) => isResource(kind) && allows(permissions, `${kind}:read` as Permission)),
  );
  const byKind = new Map<string, Set<string>>();
  for (const { kind, id } of wanted.flat()) byKind.set(kind, (byKind.get(kind) ?? new Set()).add(id));
  const readable = new Map<string, Set<string>>();
  for (const [kind, ids] of byKind) readable.set(kind, await readableOf(db, principal, kind as PermissionResource, [...ids]));
  const asked = wanted.flatMap((refs, entry) =>
    refs
      .filter(({ kind, id }) => readable.get(kind)?.has(id))
      .map((ref) => ({ ...ref, entry, position: String(entries[entry]?.position) })),
  );
  const names = entries.map((): Record<string, string> => ({}));
  if (asked.length === 0) return names;
  const { rows } = await NAMES_THEN(
    asked.map((ref) => ref.kind),
    asked.map((ref) => ref.id),
    asked.map((ref) => ref.position),
  ).execute(db);
  for (const row of rows) {
    const ref = asked[Number(row.n) - 1];
    const name = nameOf({ ...row.fields, ...row.later });
    if (ref && name !== null) (names[ref.entry] ?? {})[ref.id] = name;
  }
  return names;
}
