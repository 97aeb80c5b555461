import { sql } from 'kysely';
import type { Db } from '../storage/kysely.js';

/**
 * Whether some active `super` could still sign in once provider `providerId` is disabled or deleted:
 * through another enabled, non-deleted provider that
 * - is the `svc_service_account` provider, and a super service account exists;
 * - has the key a super SSO user (kind `human`) is registered with (`users.provider`);
 * - is a `guest` provider whose identity is mapped to the role `super`.
 *
 * This reads the read models (`users`, `auth_providers`), not the event streams: a concurrent
 * change (a super demoted, another provider disabled at the same moment) can race it, and two
 * administrators disabling the last two ways in at once could both pass. The window is as small as
 * the projection lag; closing it would take one guard stream asserted by every super-user and
 * provider change.
 */
export async function leavesSuperSignIn(db: Db, providerId: string): Promise<boolean> {
  const { rows } = await sql<{ possible: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM auth_providers p
       WHERE p.enabled AND p.deleted_at IS NULL AND p.id <> ${providerId}
         AND (
              (p.type = 'svc_service_account' AND EXISTS (
                 SELECT 1 FROM users u
                  WHERE u.kind = 'service_account' AND NOT u.deactivated AND 'super' = ANY(u.roles)))
           OR (p.type = 'guest' AND p.configuration->>'role' = 'super')
           OR EXISTS (
                 SELECT 1 FROM users u
                  WHERE u.kind = 'human' AND u.provider = p.key AND NOT u.deactivated AND 'super' = ANY(u.roles))
         )
    ) AS possible`.execute(db);
  return rows[0]?.possible === true;
}
