import { sql, type RawBuilder } from 'kysely';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import type { EntityDeclaration } from '../model/entity.js';
import { kindLevel, levelIncludes, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import type { Db } from '../storage/kysely.js';
import { readableRows } from './entity-access.js';
import { titleOf } from './search.js';

/** One of the caller's favorites, with what a list of them shows. */
export interface FavoriteView {
  readonly entityType: string;
  readonly plural: string;
  readonly entityId: string;
  /** Its name (its identifier for source codes and their versions). */
  readonly name: string;
  /** When it was starred. */
  readonly createdAt: string;
  /** The entity in the REST API. */
  readonly href: string;
  /** Its page in the web UI. */
  readonly link: string;
}

/** The caller's favorites of one kind that still exist and they may still read; undefined when they may read none of that kind. */
function kindFavorites(entity: EntityDeclaration, principal: Principal): RawBuilder<unknown> | undefined {
  const resource = entity.kind as PermissionResource;
  const alias = `f_${entity.table}`;
  // Teams are owned by no team: a caller reads them by the kind's permission alone.
  if (entity.kind === 'team' && !levelIncludes(kindLevel(principal.permissions, resource), 'read')) return undefined;
  const readable = entity.kind === 'team' ? undefined : readableRows(principal, resource, alias);
  return sql`SELECT ${entity.kind}::text AS entity_type, ${entity.plural}::text AS plural, ${sql.ref(`${alias}.id`)}::text AS entity_id,
      ${sql.ref(`${alias}.${titleOf(entity)}`)} AS name, fav.created_at
    FROM favorites fav JOIN ${sql.table(entity.table)} AS ${sql.raw(alias)} ON ${sql.ref(`${alias}.id`)} = fav.entity_id
    WHERE fav.user_id = ${principal.userId} AND fav.entity_type = ${entity.kind} AND ${sql.ref(`${alias}.deleted_at`)} IS NULL
      ${readable ? sql`AND ${readable}` : sql``}`;
}

/**
 * The caller's favorites, newest first: only entities that still exist and that they may still read
 * (a favorite outlives neither; the star stays in their stream and shows again if access returns).
 */
export async function listFavorites(db: Db, principal: Principal, kinds?: readonly string[]): Promise<FavoriteView[]> {
  const wanted = new Set(kinds ?? DECLARED_ENTITIES.map((entity) => entity.kind));
  const parts = DECLARED_ENTITIES.filter((entity) => wanted.has(entity.kind)).flatMap((entity) => {
    const part = kindFavorites(entity, principal);
    return part ? [part] : [];
  });
  if (parts.length === 0) return [];
  const { rows } = await sql<{ entity_type: string; plural: string; entity_id: string; name: string; created_at: Date | string }>`
    SELECT * FROM (${sql.join(parts, sql` UNION ALL `)}) AS favorites ORDER BY created_at DESC, entity_id LIMIT 1000`.execute(db);
  return rows.map((row) => ({
    entityType: row.entity_type,
    plural: row.plural,
    entityId: row.entity_id,
    name: row.name,
    createdAt: new Date(row.created_at).toISOString(),
    href: `/api/${row.plural}/${row.entity_id}`,
    link: `/${row.plural}/${row.entity_id}/show`,
  }));
}

/** Which of `ids` the user starred (one statement for a page of rows). */
export async function favoritesAmong(db: Db, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ entity_id: string }>`
    SELECT entity_id::text AS entity_id FROM favorites WHERE user_id = ${userId} AND entity_id = ANY(${ids}::uuid[])`.execute(db);
  return new Set(rows.map((row) => row.entity_id));
}
