import { USER_ID } from './metadata.js';
import type { ColumnType } from './row-projection.js';

/**
 * A catalog entity's fold, written in SQL: what a rebuild runs instead of replaying the events in
 * Node when the projection only maps event fields to columns (catalog-projection.ts builds it; a
 * projection that masks secrets has none). One statement per part reads the entity's events, merges
 * each stream's events into one JSON object in stream order (`jsonb_merge_agg`, migration 036) and
 * inserts the rows and link rows from it: what `evolve` does event by event, done by the database
 * without the events leaving it.
 */
export interface SqlFoldSpec {
  readonly table: string;
  /** Every column of the table and its type. */
  readonly columns: Readonly<Record<string, ColumnType>>;
  /** The event field (key in the events' data) each column takes its value from, for the columns fields reach. */
  readonly keys: Readonly<Record<string, string>>;
  /** What a created row holds, by column, where its event has no such field (as `evolve` starts it). */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The link tables, each with the field holding its id list. */
  readonly links: readonly SqlFoldLink[];
  readonly events: SqlFoldEvents;
  /** Every event type the projection handles (types beyond `events` only stamp the row). */
  readonly handles: readonly string[];
}

/** A link table of the fold: its columns, and the event field whose id list it holds. */
export interface SqlFoldLink {
  readonly table: string;
  readonly ownerColumn: string;
  readonly targetColumn: string;
  readonly key: string;
}

/** The entity's event types the fold gives a meaning (catalog events have enable/disable, lifecycle ones transitions). */
export interface SqlFoldEvents {
  readonly created: string;
  readonly updated: string;
  readonly deleted: string;
  readonly enabled?: string;
  readonly disabled?: string;
  readonly transitioned?: string;
}

/**
 * Keys of the merged object that no event field can have (fields are identifiers): when the row last
 * changed (absent while only the created event is in it), when it was deleted, and a lifecycle run's error.
 */
const UPDATED = '@updated';
const DELETED = '@deleted';
const LAST_ERROR = '@lastError';

/** Names go into the statement's text: only these shapes are accepted (they come from declarations, never from input). */
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
const KEY = /^[A-Za-z][A-Za-z0-9]*$/;
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

function checked(pattern: RegExp, name: string, what: string): string {
  if (!pattern.test(name)) throw new TypeError(`SQL fold: ${what} ${name} is not a plain name`);
  return name;
}

/** A key as a SQL string literal (checked plain, so no quoting is needed). */
const literal = (key: string): string => `'${key}'`;

/**
 * A column's value from a JSON value (`json`, and `text` for its text), as the Node path's
 * json_to_recordset would read it.
 */
function valueFrom(type: ColumnType, json: string, text: string): string {
  switch (type) {
    case 'text':
      return text;
    case 'jsonb':
      // A JSON null is a SQL NULL in the column, as json_to_recordset reads it.
      return `nullif(${json}, 'null'::jsonb)`;
    case 'text[]':
      return `CASE jsonb_typeof(${json}) WHEN 'array' THEN ARRAY(SELECT jsonb_array_elements_text(${json})) END`;
    default:
      return `(${text})::${type}`;
  }
}

/** The column's value from the merged object `m`. */
const valueOf = (type: ColumnType, key: string): string => valueFrom(type, `m->${literal(key)}`, `m->>${literal(key)}`);

/** A default as a SQL value of the column's type (JSON text with quotes doubled: a string literal). */
function defaultOf(type: ColumnType, value: unknown): string {
  const json = `'${JSON.stringify(value).replaceAll("'", "''")}'::jsonb`;
  return valueFrom(type, json, `(${json} #>> '{}')`);
}

/** The user that acted, when the event's actor is one (actorUserId: bootstrap and system actions have none). */
const ACTOR_UUID = `'${USER_ID.source}'`;

/** What a column of the row is, read from the merged object of its stream and the stream's aggregates. */
function columnValue(spec: SqlFoldSpec, column: string, type: ColumnType): string {
  switch (column) {
    case 'creator_id':
      return `CASE WHEN actor ~* ${ACTOR_UUID} THEN actor::uuid END`;
    case 'revision':
      return `revision::${type}`;
    case 'created_at':
      return `created_at::${type}`;
    case 'updated_at':
      return `coalesce(m->>${literal(UPDATED)}, created_at)::${type}`;
    case 'deleted_at':
      return valueOf(type, DELETED);
    case 'last_error':
      return valueOf(type, LAST_ERROR);
    default: {
      const key = spec.keys[column];
      if (key === undefined) return `NULL::${type}`;
      if (!(column in spec.defaults)) return valueOf(type, key);
      return `CASE WHEN m ? ${literal(key)} THEN ${valueOf(type, key)} ELSE ${defaultOf(type, spec.defaults[column])} END`;
    }
  }
}

/** The object an event merges into its row, by event type. */
function patches(spec: SqlFoldSpec): string {
  const at = "metadata->'occurredAt'";
  const stamp = `jsonb_build_object(${literal(UPDATED)}, ${at})`;
  const emptyLinks = spec.links.flatMap((link) => [literal(link.key), "'[]'::jsonb"]);
  const { events } = spec;
  const cases: string[] = [
    // The created event's fields as they are (no copy): its time and actor are aggregated beside.
    `WHEN ${literal(events.created)} THEN data`,
    `WHEN ${literal(events.updated)} THEN (data->'changes') || ${stamp}`,
    // A tombstone keeps the revision (so a replay cannot resurrect the row) and no links.
    `WHEN ${literal(events.deleted)} THEN jsonb_build_object(${[literal(DELETED), at, literal(UPDATED), at, ...emptyLinks].join(', ')})`,
  ];
  if (events.enabled)
    cases.push(`WHEN ${literal(events.enabled)} THEN jsonb_build_object('status', 'enabled', ${literal(UPDATED)}, ${at})`);
  if (events.disabled)
    cases.push(`WHEN ${literal(events.disabled)} THEN jsonb_build_object('status', 'disabled', ${literal(UPDATED)}, ${at})`);
  if (events.transitioned) {
    const outputs =
      'outputs' in spec.columns ? ` || CASE WHEN data ? 'outputs' THEN jsonb_build_object('outputs', data->'outputs') ELSE '{}' END` : '';
    const lastError =
      'last_error' in spec.columns ? ` || jsonb_build_object(${literal(LAST_ERROR)}, coalesce(data->'error', 'null'::jsonb))` : '';
    const position = `jsonb_build_object('state', data->'state', 'status', data->'status', ${literal(UPDATED)}, ${at})`;
    cases.push(`WHEN ${literal(events.transitioned)} THEN ${position}${outputs}${lastError}`);
  }
  // Any other event of the entity only stamps the row.
  return `CASE type ${cases.join('\n      ')}\n      ELSE ${stamp} END`;
}

/**
 * The statement that folds one part of the entity's events (streams split by a hash of their id,
 * `parts` of them) into its tables, found on the search path. Parameters: $1 the position it folds up
 * to, $2 the handled types, $3 this part (with `parts` > 1). It answers how many events it folded, the
 * rows it wrote, and how many events are not at their current schema version (`versions`): those
 * need their upcasters, so the caller rolls back and replays in Node.
 */
export function foldStatement(spec: SqlFoldSpec, versions: ReadonlyMap<string, number>, parts: number): string {
  const table = checked(IDENTIFIER, spec.table, 'table');
  const columns = Object.entries(spec.columns).map(([column, type]) => [checked(IDENTIFIER, column, 'column'), type] as const);
  for (const key of Object.values(spec.keys)) checked(KEY, key, 'field');
  for (const type of Object.values(spec.events) as string[]) checked(TYPE_NAME, type, 'event type');
  const current = [...versions].map(([type, version]) => `WHEN ${literal(checked(TYPE_NAME, type, 'event type'))} THEN ${String(version)}`);
  const linkInserts = spec.links.map((link, i) => {
    const key = literal(checked(KEY, link.key, 'field'));
    const [linkTable, owner, target] = [link.table, link.ownerColumn, link.targetColumn].map((name) => checked(IDENTIFIER, name, 'name'));
    return `link_${String(i)} AS (INSERT INTO ${String(linkTable)} (${String(owner)}, ${String(target)}, ordinal)
      SELECT (m->>'id')::uuid, e.value::uuid, (e.ordinality - 1)::int
        FROM folded, jsonb_array_elements_text(CASE jsonb_typeof(m->${key}) WHEN 'array' THEN m->${key} ELSE '[]'::jsonb END)
             WITH ORDINALITY AS e(value, ordinality)
       WHERE created_at IS NOT NULL)`;
  });
  // The events in stream and revision order ("C": byte order, the same groups without the locale's
  // slower comparisons), merged per stream. An aggregate takes its group's rows in the order its input
  // gives them; an ORDER BY inside it would sort each stream's few events again, one sort per stream,
  // which cost PostgreSQL 15 a fifth of the fold (16 and later skip that sort for sorted input). The
  // rebuild tests compare every table this writes with the replay in Node.
  const created = literal(spec.events.created);
  const partFilter = parts > 1 ? ` AND abs(hashtext(stream_id) % ${String(parts)}) = $3::int` : '';
  return `WITH folded AS MATERIALIZED (
    SELECT jsonb_merge_agg(patch) AS m, max(stream_revision) + 1 AS revision, max(created_at) AS created_at, max(actor) AS actor,
           count(*) AS events, count(*) FILTER (WHERE stale) AS stale
      FROM (SELECT stream_id COLLATE "C" AS stream, stream_revision, ${patches(spec)} AS patch,
                   CASE type WHEN ${created} THEN metadata->>'occurredAt' END AS created_at,
                   CASE type WHEN ${created} THEN metadata->>'actorId' END AS actor,
                   (metadata->>'schemaVersion')::int IS DISTINCT FROM CASE type ${current.join(' ')} END AS stale
              FROM events
             WHERE type = ANY($2::text[]) AND global_position <= $1::bigint${partFilter}
             ORDER BY 1, 2) AS ordered
     GROUP BY stream
  ), written AS (INSERT INTO ${table} (${columns.map(([c]) => c).join(', ')})
    SELECT ${columns.map(([column, type]) => columnValue(spec, column, type)).join(',\n           ')}
      FROM folded WHERE created_at IS NOT NULL)${linkInserts.map((insert) => `,\n  ${insert}`).join('')}
  SELECT coalesce(sum(events), 0)::int AS events, coalesce(sum(stale), 0)::int AS stale,
         (count(*) FILTER (WHERE created_at IS NOT NULL))::int AS rows
    FROM folded`;
}
