import type { SqlPool } from '../../src/storage/pool.js';

/**
 * The seed's example queries, each with its floor: the same data in the same JSON shape, read by
 * hand-written SQL (one statement each: joins for to-one relations, a LATERAL json_agg per to-many
 * relation), with the service's semantics — tombstoned rows hidden, the list engine's order
 * (sort column, then id) and page, link tables in `ordinal` order.
 */
export interface BenchQuery {
  /** Short name used in the table and the floor's route. */
  readonly name: string;
  readonly title: string;
  readonly document: string;
  /** The request bodies sent in turn: `{query, variables}`, the floor reads the same bodies. */
  bodies(ids: QueryIds): string[];
  /** The floor: `{data: {…}}` exactly as the GraphQL answer's, for the variables of one body. */
  floor(pool: SqlPool, variables: Readonly<Record<string, unknown>>): Promise<unknown>;
}

/** Ids the single-row query rotates through (drawn from the seeded catalog). */
export interface QueryIds {
  readonly resourceIds: readonly string[];
}

const body = (document: string, variables?: Record<string, unknown>): string =>
  JSON.stringify(variables ? { query: document, variables } : { query: document });

interface Named {
  readonly name: string;
}

/** The name a User shows: its display name, else its identifier (as the model's computed field). */
const userName = (displayName: string | null, identifier: string | null): Named | null =>
  identifier === null ? null : { name: displayName ?? identifier };

const named = (name: string | null): Named | null => (name === null ? null : { name });

const RESOURCE_SQL = `
  SELECT r.id, r.name, r.state, r.status, t.name AS template_name, u.display_name, u.identifier
  FROM resources r
  LEFT JOIN templates t ON t.id = r.template_id AND t.deleted_at IS NULL
  LEFT JOIN users u ON u.id = r.creator_id
  WHERE r.id = $1 AND r.deleted_at IS NULL`;

interface ResourceRow {
  id: string;
  name: string;
  state: string;
  status: string;
  template_name: string | null;
  display_name: string | null;
  identifier: string | null;
}

const TEMPLATES_SQL = `
  SELECT t.id, t.name, coalesce(e.executors, '[]'::json) AS executors
  FROM templates t
  LEFT JOIN LATERAL (
    SELECT json_agg(json_build_object('name', x.name, 'runtime', x.runtime) ORDER BY te.ordinal) AS executors
    FROM template_executors te
    JOIN executors x ON x.id = te.executor_id AND x.deleted_at IS NULL
    WHERE te.template_id = t.id
  ) e ON true
  WHERE t.deleted_at IS NULL AND t.abstract = false
  ORDER BY t.name ASC, t.id ASC
  LIMIT 50`;

const EXECUTORS_SQL = `
  SELECT x.name, s.source_code_url, s.identifier, st.name AS storage_name, coalesce(i.integrations, '[]'::json) AS integrations
  FROM executors x
  LEFT JOIN source_codes s ON s.id = x.source_code_id AND s.deleted_at IS NULL
  LEFT JOIN storages st ON st.id = x.storage_id AND st.deleted_at IS NULL
  LEFT JOIN LATERAL (
    SELECT json_agg(json_build_object('name', g.name, 'integrationProvider', g.integration_provider) ORDER BY ei.ordinal) AS integrations
    FROM executor_integrations ei
    JOIN integrations g ON g.id = ei.integration_id AND g.deleted_at IS NULL
    WHERE ei.executor_id = x.id
  ) i ON true
  WHERE x.deleted_at IS NULL
  ORDER BY x.created_at DESC, x.id DESC
  LIMIT 100`;

interface ExecutorRow {
  name: string;
  source_code_url: string | null;
  identifier: string | null;
  storage_name: string | null;
  integrations: unknown[];
}

const RESOURCES_SQL = `
  SELECT r.id, r.name, r.state, r.status, r.created_at, t.name AS template_name, u.display_name, u.identifier
  FROM resources r
  LEFT JOIN templates t ON t.id = r.template_id AND t.deleted_at IS NULL
  LEFT JOIN users u ON u.id = r.creator_id
  WHERE r.deleted_at IS NULL
  ORDER BY r.created_at DESC, r.id DESC
  LIMIT 100`;

export const BENCH_QUERIES: readonly BenchQuery[] = [
  {
    name: 'resource',
    title: '(a) one resource + template + creator',
    document: 'query ($id: UUID!) { resource(id: $id) { id name state status template { name } creator { name } } }',
    bodies(ids) {
      return ids.resourceIds.map((id) => body(this.document, { id }));
    },
    async floor(pool, variables) {
      const { rows } = await pool.query<ResourceRow>(RESOURCE_SQL, [variables.id]);
      const r = rows[0];
      const resource = r && {
        id: r.id,
        name: r.name,
        state: r.state,
        status: r.status,
        template: named(r.template_name),
        creator: userName(r.display_name, r.identifier),
      };
      return { data: { resource: resource ?? null } };
    },
  },
  {
    name: 'templates',
    title: '(b) 50 templates, filter/sort/range + executors',
    document: '{ templates(filter: {abstract: false}, sort: ["name", "ASC"], range: [0, 50]) { id name executors { name runtime } } }',
    bodies() {
      return [body(this.document)];
    },
    async floor(pool) {
      const { rows } = await pool.query<{ id: string; name: string; executors: unknown[] }>(TEMPLATES_SQL);
      return { data: { templates: rows } };
    },
  },
  {
    name: 'executors',
    title: '(c) 100 executors + sourceCode, storage, integrationIds',
    document:
      '{ executors(range: [0, 100]) { name sourceCode { sourceCodeUrl identifier } storage { name } integrationIds { name ' +
      'integrationProvider } } }',
    bodies() {
      return [body(this.document)];
    },
    async floor(pool) {
      const { rows } = await pool.query<ExecutorRow>(EXECUTORS_SQL);
      const executors = rows.map((x) => ({
        name: x.name,
        sourceCode: x.source_code_url === null ? null : { sourceCodeUrl: x.source_code_url, identifier: x.identifier },
        storage: named(x.storage_name),
        integrationIds: x.integrations,
      }));
      return { data: { executors } };
    },
  },
  {
    name: 'resources',
    title: '(d) 100-row resources page + template + creator',
    document: '{ resources(range: [0, 100]) { id name state status createdAt template { name } creator { name } } }',
    bodies() {
      return [body(this.document)];
    },
    async floor(pool) {
      const { rows } = await pool.query<ResourceRow & { created_at: Date }>(RESOURCES_SQL);
      const resources = rows.map((r) => ({
        id: r.id,
        name: r.name,
        state: r.state,
        status: r.status,
        createdAt: r.created_at.toISOString(),
        template: named(r.template_name),
        creator: userName(r.display_name, r.identifier),
      }));
      return { data: { resources } };
    },
  },
];
