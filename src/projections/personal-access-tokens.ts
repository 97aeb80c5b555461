import type { DecodedEvent } from '../events/codec.js';
import { personalAccessTokenEvents } from '../events/personal-access-token.js';
import { personalAccessTokenEntity } from '../model/personal-access-token.js';
import { accountProjection } from './account-projection.js';

/**
 * A `personal_access_tokens` row as the projection folds it (timestamps as ISO strings). There is no
 * `last_used_at`: the authenticator writes it (declared `projected: false`), so an upsert or a
 * replay never overwrites it.
 */
export interface PersonalAccessTokenRow {
  [column: string]: unknown;
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  expires_at: string;
  revoked_at: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A revocation records when (the creation is the declaration's). */
function evolve(row: PersonalAccessTokenRow, decoded: DecodedEvent): PersonalAccessTokenRow {
  return decoded.event.type === 'PersonalAccessTokenRevoked' ? { ...row, revoked_at: row.updated_at } : row;
}

/** The personal_access_tokens read model: one row per token, revoked ones included (src/model/personal-access-token.ts). */
export const personalAccessTokensProjection = accountProjection<PersonalAccessTokenRow>(personalAccessTokenEntity, {
  created: 'PersonalAccessTokenCreated',
  handles: personalAccessTokenEvents.map((d) => d.type),
  evolve,
});
