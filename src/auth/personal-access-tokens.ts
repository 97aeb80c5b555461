import { sql } from 'kysely';
import type { Db } from '../storage/kysely.js';
import { AppError } from '../errors.js';
import { parsePersonalAccessToken } from './pat-format.js';

interface TokenRow {
  readonly id: string;
  readonly user_id: string;
  readonly expires_at: Date;
  readonly revoked_at: Date | null;
  readonly created_at: Date;
}

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

/**
 * Resolves an `ilpat_` bearer token to its token and owner, or throws `UNAUTHENTICATED` saying why.
 * Whether the owner is still active, and whether the provider is enabled, is the caller's check.
 */
export async function verifyPersonalAccessToken(
  db: Db,
  token: string,
  now: Date,
): Promise<{ tokenId: string; userId: string; createdAt: Date }> {
  // Typos and random strings are refused here, before any database read.
  const parsed = parsePersonalAccessToken(token);
  if ('error' in parsed) throw unauthenticated('malformed personal access token');
  // The lookup is by the SHA-256 of the whole token, so a timing difference can only reveal something
  // about a hash prefix, never about the secret: a constant-time comparison would add nothing.
  const { rows } = await sql<TokenRow>`
    SELECT id, user_id, expires_at, revoked_at, created_at FROM personal_access_tokens WHERE token_hash = ${parsed.hash}`.execute(db);
  const row = rows[0];
  if (!row) throw unauthenticated('unknown personal access token');
  if (row.revoked_at !== null) throw unauthenticated('personal access token revoked');
  if (new Date(row.expires_at).getTime() <= now.getTime()) throw unauthenticated('personal access token expired');
  // At most one write a minute per token: a busy script must not turn every request into an UPDATE.
  const at = now.toISOString();
  await sql`
    UPDATE personal_access_tokens SET last_used_at = ${at}::timestamptz
     WHERE id = ${row.id} AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`.execute(db);
  return { tokenId: row.id, userId: row.user_id, createdAt: new Date(row.created_at) };
}
