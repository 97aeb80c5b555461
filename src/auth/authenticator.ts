import { sql } from 'kysely';
import type { Db } from '../db/kysely.js';
import { AppError } from '../errors.js';
import { isBackstageToken, type BackstageAuth } from './backstage.js';
import { verifyPersonalAccessToken } from './personal-access-tokens.js';
import { effectivePermissions } from './permissions.js';
import type { AuthMethod, Principal } from './principal.js';
import type { TokenService } from './tokens.js';

export interface Authenticator {
  /** Resolves an Authorization header value to the caller, or throws UNAUTHENTICATED naming why. */
  authenticate(header: string, now: Date): Promise<Principal>;
}

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

interface UserRow {
  id: string;
  kind: Principal['kind'];
  identifier: string;
  roles: string[];
  grants: string[];
  deactivated: boolean;
  sessions_revoked_before: Date | null;
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
 */
export function createAuthenticator(deps: { db: Db; tokens: TokenService; backstage?: BackstageAuth }): Authenticator {
  const { db, tokens } = deps;

  // Every request runs this lookup: compiled once, only its parameter changes.
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
    ])
    .where('sessions.id', '=', '00000000-0000-0000-0000-000000000000')
    .compile();

  async function viaServiceToken(token: string, now: Date): Promise<Principal> {
    const verified = await tokens.verify(token, now);
    const lookup: typeof sessionLookup = { ...sessionLookup, parameters: [verified.sessionId] };
    const [row] = (await db.executeQuery(lookup)).rows;
    if (!row || row.user_id !== verified.userId) throw unauthenticated('token revoked: unknown session');
    if (row.ended_at !== null) throw unauthenticated('token revoked: the session has ended');
    // Deactivation also revokes sessions; saying "deactivated" is the more useful reason.
    if (row.deactivated) throw unauthenticated('user deactivated');
    // iat has one-second resolution: a token from the same second as the revocation is refused too,
    // so none issued just before it can slip through.
    if (row.sessions_revoked_before !== null && verified.issuedAt.getTime() <= Math.floor(new Date(row.sessions_revoked_before).getTime() / 1000) * 1000) {
      throw unauthenticated("token revoked: the user's sessions were revoked");
    }
    if (row.method === 'guest' || row.method === 'backstage') {
      // Guest and Backstage access lasts only while such a provider is enabled, whatever sessions exist.
      const enabled = await db
        .selectFrom('auth_providers')
        .select('id')
        .where('type', '=', row.method)
        .where('enabled', '=', true)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!enabled) throw unauthenticated(`${row.method === 'guest' ? 'guest' : 'Backstage'} sign-in is disabled`);
    }
    return principalFrom(row, row.method as AuthMethod, { sessionId: verified.sessionId });
  }

  async function viaPersonalAccessToken(token: string, now: Date): Promise<Principal> {
    const { tokenId, userId } = await verifyPersonalAccessToken(db, token, now);
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
    return principalFrom(user, 'personal_access_token', { tokenId });
  }

  return {
    async authenticate(header, now) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const token = match?.[1];
      if (!token) throw unauthenticated("malformed Authorization header: expected 'Bearer <token>'");
      if (token.startsWith('ilpat_')) return viaPersonalAccessToken(token, now);
      // A developer portal's user token says so in its header (SPEC §5); everything else is ours.
      if (deps.backstage && isBackstageToken(token)) return principalFrom(await deps.backstage.userOf(token, now), 'backstage', {});
      return viaServiceToken(token, now);
    },
  };
}

/** Kept for callers that need "is anything there" without a principal (e.g. bootstrap). */
export const countUsers = async (db: Db): Promise<number> =>
  Number((await db.selectFrom('users').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
