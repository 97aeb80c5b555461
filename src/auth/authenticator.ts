import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { Lru } from '../lru.js';
import { teamsColumn, teamsFrom } from '../read/entity-access.js';
import { batchedLookup, idGroups, sameTurnLoader } from '../storage/id-batch.js';
import type { Db } from '../storage/kysely.js';
import { arrayLiteral } from '../storage/literals.js';
import type { AppendCondition } from '../events/store/port.js';
import { AppError } from '../errors.js';
import { isBackstageToken, type BackstageAuth } from './backstage.js';
import { verifyPersonalAccessToken } from './personal-access-tokens.js';
import { effectivePermissions } from '../model/permissions.js';
import type { AuthMethod, Principal } from '../model/principal.js';
import { issuedBeforeRevocation } from './revocation.js';
import type { TokenService, VerifiedToken } from './tokens.js';

/** Resolves a bearer token (service, personal access or Backstage token) to the caller it stands for, or refuses it with the reason. */
export interface Authenticator {
  /** Resolves an Authorization header value to the caller, or throws UNAUTHENTICATED naming why. */
  authenticate(header: string, now: Date): Promise<Principal>;
  /**
   * The caller of a service token as its session looked at this replica's last lookup, without a
   * statement: undefined when not remembered (or not a service token). Unconfirmed: whoever uses it
   * must have `guard` checked by a statement of the same request, or call `authenticate`, before
   * answering (see sessionGuardSql).
   */
  recall(header: string, now: Date): Promise<Recalled | undefined>;
  /**
   * `recall` for a write: the caller with their teams as that lookup read them, and the condition an
   * append checks to confirm them (the session and user rows and the teams unchanged). Its answer
   * is unconfirmed until an append with the condition commits (src/edge/recalled-writes.ts).
   */
  recallWriter(header: string, now: Date): Promise<RecalledWriter | undefined>;
}

/** What a statement checks to confirm a recalled caller: the session still looks exactly as remembered. */
export interface SessionGuard {
  readonly sessionId: string;
  readonly fingerprint: string;
}

/** A caller remembered from this replica's last lookup of its session (see docs/decisions/0003-speculative-session-check.md). */
export interface Recalled {
  readonly principal: Principal;
  readonly guard: SessionGuard;
}

/** A writer remembered from this replica's last lookup of its session, with the append's check of it. */
export interface RecalledWriter extends Recalled {
  readonly condition: AppendCondition;
}

/** How many sessions' last lookups are remembered for `recall` (a few hundred bytes each). */
export const RECALLED_SESSIONS = 10_000;

/**
 * Which versions of the session and user rows the authenticator decided on: each row's `xmin`, the
 * transaction that wrote that version. Any change to either row (to a column the authenticator
 * decides on or to another) writes a new version under another transaction's id, so equal values
 * mean the very rows that were read, and so the same decision; a row rewritten unchanged (a rebuild)
 * only costs one lookup. Computed by PostgreSQL on both sides (the lookup and the guard). Until
 * 2026-11-29 it was an MD5 digest of the nine columns: the guard cost a single read 16–22 µs of
 * PostgreSQL's time, against 10–12 µs now (docs/benchmarks.md).
 */
const fingerprintOf = (session: string, user: string): string => `${session}.xmin::text || '.' || ${user}.xmin::text`;

/** By first parameter number: a statement has a few dozen parameters at most. */
const guardTexts = new Map<number, string>();

/**
 * A boolean SQL expression, true only while the session still looks as `guard` remembers it (ended,
 * deleted, deactivated, revoked or re-roled sessions all change it). Its two parameters are numbered
 * from `first`; it is an uncorrelated subquery, so PostgreSQL evaluates it once per statement.
 */
export function sessionGuardSql(first: number): string {
  let text = guardTexts.get(first);
  if (text === undefined) {
    text =
      `coalesce((select ${fingerprintOf('guard_s', 'guard_u')} from sessions as guard_s` +
      ' inner join users as guard_u on guard_u.id = guard_s.user_id' +
      ` where guard_s.id = $${first}) = $${first + 1}, false)`;
    guardTexts.set(first, text);
  }
  return text;
}

/**
 * `sessionGuardSql` and the caller's teams (`teamsSql`, the teams column read with `guard_u.id` as
 * the user) equal to those remembered: what a write's append checks (`recallWriter`). A team's
 * membership, status or deletion is no change to the session or user rows, and a create's default
 * owner comes from the teams. Parameters from `first`: the session, the rows' versions, the teams.
 */
function writerGuardSql(teamsSql: string, first: number): string {
  return (
    `coalesce((select ${fingerprintOf('guard_s', 'guard_u')} = $${first + 1} and ${teamsSql} = $${first + 2}::text[]` +
    ' from sessions as guard_s inner join users as guard_u on guard_u.id = guard_s.user_id' +
    ` where guard_s.id = $${first}), false)`
  );
}

/** Whether two principals of one request would be answered alike (the same user, roles and permissions). */
export function samePrincipal(a: Principal, b: Principal): boolean {
  return (
    a.userId === b.userId &&
    a.kind === b.kind &&
    a.identifier === b.identifier &&
    a.method === b.method &&
    a.sessionId === b.sessionId &&
    a.tokenId === b.tokenId &&
    isDeepStrictEqual(a.roles, b.roles) &&
    isDeepStrictEqual(a.permissions, b.permissions)
  );
}

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const bearerOf = (header: string): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];

interface UserRow {
  id: string;
  kind: Principal['kind'];
  identifier: string;
  roles: string[];
  grants: string[];
  deactivated: boolean;
  sessions_revoked_before: Date | null;
}

interface SessionRow extends UserRow {
  session_id: string;
  ended_at: Date | null;
  method: string;
  user_id: string;
  fingerprint: string;
  /** The user's teams (`teamsColumn`): on the principal of this lookup only, never on a recalled one. */
  teams: string[];
}

function principalFrom(user: UserRow, method: AuthMethod, extra: Pick<Principal, 'sessionId' | 'tokenId'>): Principal {
  if (user.deactivated) throw unauthenticated('user deactivated');
  return {
    userId: user.id,
    kind: user.kind,
    identifier: user.identifier,
    roles: user.roles,
    permissions: effectivePermissions(user.roles, user.grants),
    method,
    ...extra,
  };
}

/**
 * Every request is checked against the read model (one statement): an ended session, a deactivated
 * user or revoked sessions are refused on the very next request, on every replica. Writes that end
 * sessions wait for their projection before answering, so "next request" holds across replicas too.
 * `recall` answers from the last lookup of a session instead, for callers that check the session in
 * a statement of their own before answering (GraphQL queries: src/graphql/speculation.ts).
 */
export function createAuthenticator(deps: { db: Db; tokens: TokenService; backstage?: BackstageAuth }): Authenticator {
  const { db, tokens } = deps;

  // Every request that is not answered from `recall` runs this lookup: compiled once, only its
  // parameters change. Requests read in one poll look their sessions up together
  // (src/storage/id-batch.ts): one statement instead of one each.
  const sessionLookup = db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'users.id',
      'users.kind',
      'users.identifier',
      'users.roles',
      'users.grants',
      'users.deactivated',
      'users.sessions_revoked_before',
      'sessions.ended_at',
      'sessions.method',
      'sessions.user_id',
      'sessions.id as session_id',
      sql<string>`${sql.raw(fingerprintOf('sessions', 'users'))}`.as('fingerprint'),
      teamsColumn(sql.ref('users.id')).as('teams'),
    ])
    .where('sessions.id', '=', '00000000-0000-0000-0000-000000000000')
    .compile();
  const sessionsLookup = batchedLookup(sessionLookup.sql);
  const lookUp = sameTurnLoader<Db, SessionRow>(async (database, sessionIds) => {
    const found = new Map<string, SessionRow>();
    for (const group of idGroups(sessionIds)) {
      const query = group.length === 1 ? sessionLookup : { ...sessionLookup, sql: sessionsLookup };
      const { rows } = await database.executeQuery({ ...query, parameters: group });
      for (const row of rows as SessionRow[]) found.set(row.session_id, row);
    }
    return found;
  });

  // The teams column about the guard's user, for writerGuardSql: literals only, no parameters.
  const teamsSql = teamsColumn(sql.ref('guard_u.id')).compile(db);
  if (teamsSql.parameters.length > 0) throw new Error('the teams column takes no parameters');
  const writerGuardTexts = new Map<number, string>();
  const writerGuard = (first: number): string => {
    let text = writerGuardTexts.get(first);
    if (text === undefined) {
      text = writerGuardSql(teamsSql.sql, first);
      writerGuardTexts.set(first, text);
    }
    return text;
  };

  /** Sessions whose lookup found a caller, by session id: what `recall` answers from. */
  const remembered = new Lru<string, SessionRow>(RECALLED_SESSIONS);
  /**
   * What `recallWriter` answers from a remembered row, made once per lookup: one condition object
   * per session version, so a grouped append checks the writes of one caller once (by identity).
   */
  const writers = new WeakMap<SessionRow, { readonly teams: Principal['teams']; readonly condition: AppendCondition }>();

  /**
   * The caller each looked-up row allows, made once per row: a remembered row answers every request
   * of its session until the next lookup (`recall`), and the caller it allows depends on the row alone.
   */
  const principals = new WeakMap<SessionRow, Principal>();

  /** The caller a session row allows for a verified token; throws UNAUTHENTICATED naming why not. */
  function decide(row: SessionRow | undefined, verified: VerifiedToken): Principal {
    if (!row || row.user_id !== verified.userId) throw unauthenticated('token revoked: unknown session');
    if (row.ended_at !== null) throw unauthenticated('token revoked: the session has ended');
    // Deactivation also revokes sessions; saying "deactivated" is the more useful reason.
    if (row.deactivated) throw unauthenticated('user deactivated');
    // Checked for every token: the revocation depends on when this token was issued, not on the row.
    if (issuedBeforeRevocation(verified.issuedAt, row.sessions_revoked_before))
      throw unauthenticated("token revoked: the user's sessions were revoked");
    let principal = principals.get(row);
    if (principal?.sessionId !== verified.sessionId) {
      principal = principalFrom(row, row.method as AuthMethod, { sessionId: verified.sessionId });
      principals.set(row, principal);
    }
    return principal;
  }

  async function viaServiceToken(token: string, now: Date): Promise<Principal> {
    const verified = await tokens.verify(token, now);
    // A session id is a uuid (ours, signed): anything else is no session, and never reaches the
    // statement, where it would fail the other requests' lookups batched with it.
    const row = UUID.test(verified.sessionId) ? await lookUp(db, verified.sessionId.toLowerCase()) : undefined;
    remembered.delete(verified.sessionId);
    const principal: Principal = { ...decide(row, verified), teams: teamsFrom(row?.teams ?? []) };
    if (row?.method === 'guest' || row?.method === 'backstage') {
      // Guest and Backstage access lasts only while such a provider is enabled, whatever sessions exist.
      const enabled = await db
        .selectFrom('auth_providers')
        .select('id')
        .where('type', '=', row.method)
        .where('enabled', '=', true)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!enabled) throw unauthenticated(`${row.method === 'guest' ? 'guest' : 'Backstage'} sign-in is disabled`);
    } else if (row) {
      // For `recall`. Guest and Backstage sessions are not remembered: they also depend on their
      // provider being enabled, which the guard does not check.
      remembered.set(verified.sessionId, row);
    }
    return principal;
  }

  async function viaPersonalAccessToken(token: string, now: Date): Promise<Principal> {
    const { tokenId, userId, createdAt } = await verifyPersonalAccessToken(db, token, now);
    const enabled = await db
      .selectFrom('auth_providers')
      .select('id')
      .where('type', '=', 'personal_access_token')
      .where('enabled', '=', true)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!enabled) throw unauthenticated('personal access tokens are disabled');
    const user = await db
      .selectFrom('users')
      .select(['id', 'kind', 'identifier', 'roles', 'grants', 'deactivated', 'sessions_revoked_before'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw unauthenticated('unknown personal access token');
    const principal = principalFrom(user, 'personal_access_token', { tokenId });
    // Revoking a user's sessions (or changing their password, or deactivating them) ends their tokens
    // too, atomically with that event: the tokens' own revocation events follow, for the list and the
    // audit log, but are not what this check relies on. Compared to the millisecond, as both are ours.
    if (user.sessions_revoked_before !== null && createdAt.getTime() <= new Date(user.sessions_revoked_before).getTime()) {
      throw unauthenticated('personal access token revoked');
    }
    return principal;
  }

  /** The caller of a service token as its remembered lookup found them (see `recall`), with that row. */
  async function rememberedFor(header: string, now: Date): Promise<(Recalled & { row: SessionRow }) | undefined> {
    const token = bearerOf(header);
    // A token verified before is ours: its header need not be decoded again to rule out a portal's.
    if (!token || token.startsWith('ilpat_') || (deps.backstage && !tokens.knows(token) && isBackstageToken(token))) return undefined;
    try {
      const verified = await tokens.verify(token, now);
      const row = remembered.get(verified.sessionId);
      if (!row) return undefined;
      return { principal: decide(row, verified), guard: { sessionId: verified.sessionId, fingerprint: row.fingerprint }, row };
    } catch {
      // Whatever is wrong, `authenticate` finds it again and names it.
      return undefined;
    }
  }

  return {
    async authenticate(header, now) {
      const token = bearerOf(header);
      if (!token) throw unauthenticated("malformed Authorization header: expected 'Bearer <token>'");
      if (token.startsWith('ilpat_')) return viaPersonalAccessToken(token, now);
      // A developer portal's user token says so in its header (docs/contract.md §5); everything else is ours.
      if (deps.backstage && !tokens.knows(token) && isBackstageToken(token))
        return principalFrom(await deps.backstage.userOf(token, now), 'backstage', {});
      return viaServiceToken(token, now);
    },
    async recall(header, now) {
      const found = await rememberedFor(header, now);
      return found && { principal: found.principal, guard: found.guard };
    },
    async recallWriter(header, now) {
      const found = await rememberedFor(header, now);
      if (!found) return undefined;
      const { principal, guard, row } = found;
      let writer = writers.get(row);
      if (writer === undefined) {
        writer = {
          teams: teamsFrom(row.teams),
          condition: { sql: writerGuard, parameters: [guard.sessionId, guard.fingerprint, arrayLiteral(row.teams)] },
        };
        writers.set(row, writer);
      }
      return { principal: { ...principal, teams: writer.teams }, guard, condition: writer.condition };
    },
  };
}

/** Kept for callers that need "is anything there" without a principal (e.g. bootstrap). */
export const countUsers = async (db: Db): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('users')
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
