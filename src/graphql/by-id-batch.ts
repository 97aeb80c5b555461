import type { CompiledQuery } from 'kysely';
import type { Services } from '../services.js';
import { idGroups, ID_BATCH_SIZE, sameTurnLoader } from '../storage/id-batch.js';
import { readRoute } from '../storage/read-route.js';
import { guarded, noteGuard, type Speculation } from './speculation.js';

/**
 * Single reads by id (`template(id:)`, `resource(id:)` …) of one statement, started in the same
 * event-loop turn, answered by one statement (src/storage/id-batch.ts): a busy service reads several
 * requests per poll, and a round trip is most of what such a read costs on both sides. Reads share
 * a statement only when everything but the id is the same: the document's shape and the caller
 * (the compiled statement), the session check of a recalled caller (./speculation.ts) and the read
 * route (a standby or the primary).
 */

type Row = Record<string, unknown>;

/** A single read's statement, compiled once per document shape and caller, and where its id goes. */
export interface ByIdStatement {
  readonly compiled: CompiledQuery<Row>;
  readonly idSlot: number;
}

/** What one read gets back: its row, if any, and a row of the batch for the session check. */
interface Answer {
  readonly row?: Row;
  readonly anyRow?: Row;
}

/** The reads that may share a statement: one statement, session check and route. */
interface Scope {
  readonly db: Services['db'];
  /** The statement as it runs for one id (with the session check when the caller is unconfirmed). */
  readonly single: CompiledQuery<Row>;
  /** ID_BATCH_SIZE copies of it joined by UNION ALL, copy i > 0 taking its id as parameter n + i. */
  readonly batched: string;
  readonly idSlot: number;
}

const scopes = new WeakMap<ByIdStatement, Map<string, Scope>>();
const routeIds = new WeakMap<object, number>();
let nextRouteId = 1;

function batchedText(single: CompiledQuery<Row>, idSlot: number): string {
  const count = single.parameters.length;
  const id = new RegExp(`\\$${String(idSlot + 1)}\\b`, 'g');
  // Copy 0 keeps the id's own parameter: PostgreSQL refuses a parameter no copy uses.
  return Array.from(
    { length: ID_BATCH_SIZE },
    (_, i) => `(${i === 0 ? single.sql : single.sql.replace(id, `$${String(count + i)}`)})`,
  ).join(' UNION ALL ');
}

function scopeOf(services: Services, statement: ByIdStatement, speculation: Speculation | undefined): Scope {
  const route = readRoute.getStore();
  let routeId = route ? routeIds.get(route) : 0;
  if (routeId === undefined) routeIds.set(route as object, (routeId = nextRouteId++));
  const pending = speculation?.state === 'pending';
  const key = pending ? `${String(routeId)}\u0000${speculation.guard.sessionId}\u0000${speculation.guard.fingerprint}` : String(routeId);
  let byKey = scopes.get(statement);
  if (!byKey) scopes.set(statement, (byKey = new Map<string, Scope>()));
  let scope = byKey.get(key);
  if (!scope) {
    const single = guarded(statement.compiled, pending ? speculation : undefined);
    scope = { db: services.db, single, batched: batchedText(single, statement.idSlot), idSlot: statement.idSlot };
    // Kept per statement (whose own cache bounds the statements): a handful of sessions and routes each.
    if (byKey.size >= 100) byKey.clear();
    byKey.set(key, scope);
  }
  return scope;
}

const load = sameTurnLoader<Scope, Answer>(async (scope, ids) => {
  const found = new Map<string, Row>();
  let anyRow: Row | undefined;
  for (const group of idGroups(ids)) {
    const [first, ...rest] = group;
    const parameters = scope.single.parameters.map((value, index) => (index === scope.idSlot ? first : value));
    const query =
      group.length === 1 ? { ...scope.single, parameters } : { ...scope.single, sql: scope.batched, parameters: [...parameters, ...rest] };
    const { rows } = await scope.db.executeQuery<Row>(query);
    for (const row of rows) {
      anyRow ??= row;
      // A padded id's row comes once per copy: the first is kept.
      if (!found.has(String(row.id))) found.set(String(row.id), row);
    }
  }
  return new Map(ids.map((id) => [id, { row: found.get(id), anyRow }]));
});

/**
 * The rows of `statement` for `id` (one at most), read with the other single reads of its turn
 * that may share the statement; a recalled caller's session check is noted as for any statement.
 */
export async function rowsById(
  services: Services,
  statement: ByIdStatement,
  id: string,
  speculation: Speculation | undefined,
): Promise<Row[]> {
  const answer = await load(scopeOf(services, statement, speculation), id);
  if (answer?.anyRow) noteGuard([answer.anyRow], speculation);
  return answer?.row ? [answer.row] : [];
}
