import type { DataProvider, GetListParams, Identifier, RaRecord } from 'react-admin';
import { whoAmI } from './authProvider';
import { api, listQuery, totalOf } from './client';

/** Fields the API computes: never sent back in a PATCH. */
// status/enabled/deactivated change through actions; the others are computed by the service.
const READ_ONLY = new Set([
  'id',
  'revision',
  'createdAt',
  'updatedAt',
  'creatorId',
  'callbackUrl',
  'permissions',
  'state',
  'status',
  'enabled',
  'kind',
  'provider',
  'deactivated',
  'lastError',
  'token',
  'lastUsedAt',
  'revokedAt',
  'expiresAt',
]);

/** Lists served without filter/sort/range: paginated here. */
const UNPAGED = new Set(['personal_access_tokens']);

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** An input left empty gives null; where the API keeps a string it means "". */
function normalise(value: unknown, previous: unknown): unknown {
  if (value === null && typeof previous === 'string') return '';
  return value;
}

/** Only what the form changed, so strict PATCH bodies accept it and concurrent edits of other fields survive. */
export function changedFields(data: Record<string, unknown>, previous: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(data)) {
    if (READ_ONLY.has(key)) continue;
    const value = normalise(raw, previous[key]);
    if (value === undefined || equal(value, previous[key]) || (value === null && previous[key] === undefined)) continue;
    changes[key] = value;
  }
  return changes;
}

/** A create body without the empty inputs (the API's defaults apply instead). */
export function createBody(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== null && value !== undefined && value !== ''));
}

/** Filter values react-admin inputs produce, cleaned for the list engine (no empty values). */
export function filterOf(filter: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter).filter(([, value]) => value !== '' && value !== undefined && !(Array.isArray(value) && value.length === 0)),
  );
}

/** Matches no team: "my teams'" for a caller in none lists nothing. */
const NO_TEAM = '00000000-0000-0000-0000-000000000000';

/**
 * The `mine` filter of the catalog lists ("my teams'"): what the caller's teams own, as the list
 * engine's "one of" on `ownerId` (docs/contract.md §6). Other filters pass through.
 */
async function withMine(filter: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { mine, ...rest } = filter;
  if (mine !== true) return rest;
  const teams = (await whoAmI()).teams.map((team) => team.id);
  return { ...rest, ownerId: teams.length > 0 ? teams : [NO_TEAM] };
}

async function getList(resource: string, params: GetListParams) {
  const { page, perPage } = params.pagination ?? { page: 1, perPage: 25 };
  if (UNPAGED.has(resource)) {
    const { body } = await api<RaRecord[]>(`/api/${resource}`, { signal: params.signal });
    return { data: body.slice((page - 1) * perPage, page * perPage), total: body.length };
  }
  const sort = params.sort?.field ? ([params.sort.field, params.sort.order === 'ASC' ? 'ASC' : 'DESC'] as const) : undefined;
  const filter = filterOf(await withMine(params.filter as Record<string, unknown>));
  const { body, headers } = await api<RaRecord[]>(
    `/api/${resource}${listQuery({ filter, sort, range: [(page - 1) * perPage, perPage] })}`,
    { signal: params.signal },
  );
  return { data: body, total: totalOf(headers, body.length) };
}

/**
 * Display names of users for every role: REST lists users only with `user:read`, while GraphQL's
 * `user(id)` answers any signed-in caller (restricted fields null). Aliased lookups, a chunk per
 * request to stay under the service's alias limit (GRAPHQL_MAX_ALIASES, default 30).
 */
export const USER_NAMES = 'user_names';
const NAMES_PER_REQUEST = 25;

async function userNames(ids: readonly string[], signal?: AbortSignal): Promise<RaRecord[]> {
  const records: RaRecord[] = [];
  for (let start = 0; start < ids.length; start += NAMES_PER_REQUEST) {
    const chunk = ids.slice(start, start + NAMES_PER_REQUEST);
    const parameters = chunk.map((_, i) => `$u${i}: UUID!`).join(', ');
    const query = `query (${parameters}) { ${chunk.map((_, i) => `u${i}: user(id: $u${i}) { id name }`).join(' ')} }`;
    const variables = Object.fromEntries(chunk.map((id, i) => [`u${i}`, id]));
    const { body } = await api<{ data?: Record<string, { id: string; name: string } | null> | null }>('/api/graphql', {
      method: 'POST',
      body: { query, variables },
      signal,
    });
    for (const user of Object.values(body.data ?? {})) if (user) records.push(user);
  }
  return records;
}

/** Lifecycle and enable/disable actions: POST /api/{resource}/{id}/actions/{action}. */
export interface InfraledgerDataProvider extends DataProvider {
  action(resource: string, id: Identifier, action: string, body?: unknown): Promise<{ data: RaRecord }>;
}

/** react-admin's data provider for the REST API (docs/contract.md §3): `[offset, limit]` ranges, Content-Range totals, problem details. */
export const dataProvider: InfraledgerDataProvider = {
  getList: async (resource, params) => {
    const { data, total } = await getList(resource, params);
    return { data: data as never[], total };
  },

  async getOne(resource, params) {
    const { body } = await api<RaRecord>(`/api/${resource}/${encodeURIComponent(String(params.id))}`, { signal: params.signal });
    return { data: body as never };
  },

  async getMany(resource, params) {
    const ids = [...new Set(params.ids.map(String))].filter((id) => id !== '');
    if (ids.length === 0) return { data: [] };
    if (resource === USER_NAMES) return { data: (await userNames(ids, params.signal)) as never[] };
    const { body } = await api<RaRecord[]>(`/api/${resource}${listQuery({ filter: { id: ids }, range: [0, ids.length] })}`, {
      signal: params.signal,
    });
    return { data: body as never[] };
  },

  async getManyReference(resource, params) {
    const filter: Record<string, unknown> = { ...(params.filter as Record<string, unknown>), [params.target]: params.id };
    const { data, total } = await getList(resource, { ...params, filter });
    return { data: data as never[], total };
  },

  async create(resource, params) {
    const { body } = await api<RaRecord>(`/api/${resource}`, { method: 'POST', body: createBody(params.data as Record<string, unknown>) });
    return { data: body as never };
  },

  async update(resource, params) {
    const previous = (params.previousData ?? {}) as Record<string, unknown>;
    const changes = changedFields(params.data as Record<string, unknown>, previous);
    if (Object.keys(changes).length === 0) return { data: previous as never };
    const revision = typeof previous.revision === 'number' ? previous.revision : undefined;
    const { body } = await api<RaRecord>(`/api/${resource}/${encodeURIComponent(String(params.id))}`, {
      method: 'PATCH',
      body: changes,
      ifMatch: revision,
    });
    return { data: body as never };
  },

  async updateMany(resource, params) {
    for (const id of params.ids) await api(`/api/${resource}/${encodeURIComponent(String(id))}`, { method: 'PATCH', body: params.data });
    return { data: params.ids };
  },

  async delete(resource, params) {
    await api(`/api/${resource}/${encodeURIComponent(String(params.id))}`, { method: 'DELETE' });
    return { data: (params.previousData ?? { id: params.id }) as never };
  },

  async deleteMany(resource, params) {
    for (const id of params.ids) await api(`/api/${resource}/${encodeURIComponent(String(id))}`, { method: 'DELETE' });
    return { data: params.ids };
  },

  async action(resource: string, id: Identifier, action: string, body?: unknown) {
    const response = await api<RaRecord>(`/api/${resource}/${encodeURIComponent(String(id))}/actions/${action}`, {
      method: 'POST',
      body: body ?? {},
    });
    return { data: response.body };
  },
};
