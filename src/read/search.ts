import { sql, type RawBuilder } from 'kysely';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import type { EntityDeclaration } from '../model/entity.js';
import { kindLevel, levelIncludes, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import type { Db } from '../storage/kysely.js';
import { readableRows } from './entity-access.js';
import { declaredListSpec } from './list-specs/common.js';
import { containsPattern } from './list-query/sql.js';

/**
 * One search across every declared kind the caller may read (docs/contract.md §3, "Search"): by the
 * entity's name (or identifier), its other searched fields, its labels, its description and its id,
 * ranked by where the text matched. Each kind's rows pass the same per-entity rule as its list
 * (`readableRows`), in the same statement, so a hit is never an entity the caller could not open.
 */

/** Where a hit matched, best first: what its score says. */
export const MATCHES = ['id', 'name', 'name_prefix', 'name_contains', 'field', 'label', 'description'] as const;
/** Where a hit matched. */
export type SearchMatch = (typeof MATCHES)[number];

/** The score of each place a match can be in, and so the ranking. */
const SCORE: Readonly<Record<SearchMatch, number>> = {
  id: 100,
  name: 90,
  name_prefix: 70,
  name_contains: 50,
  field: 40,
  label: 30,
  description: 20,
};

/** One entity found. */
export interface SearchHit {
  /** The entity kind, as permissions and the audit log name it: `template`, `source_code`, … */
  readonly kind: string;
  /** Its REST collection: `templates`, `source_codes`, … */
  readonly plural: string;
  readonly id: string;
  /** Its name, or its identifier for kinds without a name (source codes and their versions). */
  readonly name: string;
  readonly description: string;
  readonly labels: readonly string[];
  readonly match: SearchMatch;
  readonly score: number;
}

/** What a search asks for: the text, the kinds (all readable ones when absent) and the page. */
export interface SearchQuery {
  readonly q: string;
  readonly kinds?: readonly string[];
  readonly offset: number;
  readonly limit: number;
}

/** The kinds a search covers: every declared entity. */
export const SEARCHABLE_KINDS: readonly string[] = DECLARED_ENTITIES.map((entity) => entity.kind);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The column a kind's hits are named by: `name` where it has one, else `identifier`. */
export const titleOf = (entity: EntityDeclaration): string => ('name' in entity.fields ? 'name' : 'identifier');

/** Each kind's title column and its other searched columns (the list's `q` columns), worked out once. */
const COLUMNS = new Map(
  DECLARED_ENTITIES.map((entity) => {
    const title = titleOf(entity);
    const others = declaredListSpec(entity).search.filter((name) => name !== title && name !== 'description');
    return [entity.kind, { title, others }] as const;
  }),
);

/** The part of the statement for one kind, or undefined when the caller may read none of its rows. */
function kindSelect(entity: EntityDeclaration, principal: Principal, q: string): RawBuilder<unknown> | undefined {
  const resource = entity.kind as PermissionResource;
  const alias = `s_${entity.table}`;
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  // Teams are owned by no team: a caller reads them by the kind's permission alone.
  if (entity.kind === 'team' && !levelIncludes(kindLevel(principal.permissions, resource), 'read')) return undefined;
  const readable = entity.kind === 'team' ? undefined : readableRows(principal, resource, alias);
  const { title, others } = COLUMNS.get(entity.kind) ?? { title: titleOf(entity), others: [] };
  const contains = containsPattern(q);
  const prefix = contains.slice(1);
  const exact = q.toLowerCase();
  const inOthers =
    others.length > 0
      ? sql.join(
          others.map((name) => sql`${column(name)} ILIKE ${contains}`),
          sql` OR `,
        )
      : sql`false`;
  const inLabels = sql`EXISTS (SELECT 1 FROM unnest(${column('labels')}) AS label WHERE label ILIKE ${contains})`;
  const byId = UUID.test(q) ? sql`${column('id')} = ${exact}::uuid` : sql`false`;
  const match = sql`CASE
      WHEN ${byId} THEN 'id'
      WHEN lower(${column(title)}) = ${exact} THEN 'name'
      WHEN ${column(title)} ILIKE ${prefix} THEN 'name_prefix'
      WHEN ${column(title)} ILIKE ${contains} THEN 'name_contains'
      WHEN ${inOthers} THEN 'field'
      WHEN ${inLabels} THEN 'label'
      WHEN ${column('description')} ILIKE ${contains} THEN 'description'
    END`;
  const found = sql`(${byId} OR ${column(title)} ILIKE ${contains} OR ${inOthers} OR ${inLabels}
    OR ${column('description')} ILIKE ${contains})`;
  return sql`SELECT ${entity.kind}::text AS kind, ${entity.plural}::text AS plural, ${column('id')}::text AS id,
      ${column(title)} AS name, ${column('description')} AS description, ${column('labels')} AS labels, ${match} AS match
    FROM ${sql.table(entity.table)} AS ${sql.raw(alias)}
    WHERE ${column('deleted_at')} IS NULL AND ${found}${readable ? sql` AND ${readable}` : sql``}`;
}

/** The score of a match, as SQL (the ranking happens in the statement, before the page is cut). */
const scoreSql = sql.raw(`CASE match ${MATCHES.map((m) => `WHEN '${m}' THEN ${SCORE[m]}`).join(' ')} END`);

/**
 * A page of the hits of `query.q` in the kinds asked for (all when none are) that the caller may
 * read, best first (then by name, kind and id), and how many there are in all.
 */
export async function searchCatalog(db: Db, principal: Principal, query: SearchQuery): Promise<{ rows: SearchHit[]; total: number }> {
  const kinds = new Set(query.kinds ?? SEARCHABLE_KINDS);
  const parts = DECLARED_ENTITIES.filter((entity) => kinds.has(entity.kind)).flatMap((entity) => {
    const part = kindSelect(entity, principal, query.q);
    return part ? [part] : [];
  });
  if (parts.length === 0) return { rows: [], total: 0 };
  const hits = sql`(${sql.join(parts, sql` UNION ALL `)})`;
  const { rows } = await sql<Omit<SearchHit, 'score'> & { score: number; total: string }>`
    SELECT hits.*, ${scoreSql} AS score, count(*) OVER () AS total
      FROM ${hits} AS hits
     ORDER BY score DESC, lower(name), kind, id
     OFFSET ${query.offset} LIMIT ${query.limit}`.execute(db);
  const first = rows[0];
  if (!first && (query.offset > 0 || query.limit === 0)) {
    // Past the last hit, or no page asked for: no row carries the total.
    const { rows: counted } = await sql<{ total: string }>`SELECT count(*) AS total FROM ${hits} AS hits`.execute(db);
    return { rows: [], total: Number(counted[0]?.total ?? 0) };
  }
  return { rows: rows.map(({ total: _total, ...hit }) => hit), total: first ? Number(first.total) : 0 };
}
