import type { DecodedEvent } from '../events/codec.js';
import { personalAccessTokenEvents, type PersonalAccessTokenEvent } from '../events/personal-access-token.js';
import { STREAMS } from '../events/streams.js';
import { createdColumns, rowProjection, touched } from './row-projection.js';

/**
 * A `personal_access_tokens` row as the projection folds it (timestamps as ISO strings). There is no
 * `last_used_at`: the authenticator writes it, and leaving it out of the projected columns means an
 * upsert or a replay never overwrites it.
 */
export interface PersonalAccessTokenRow {
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

function evolve(row: PersonalAccessTokenRow | undefined, decoded: DecodedEvent): PersonalAccessTokenRow | undefined {
  const event = decoded.event as PersonalAccessTokenEvent;
  switch (event.type) {
    case 'PersonalAccessTokenCreated': {
      const d = event.data;
      return {
        id: d.id,
        user_id: d.userId,
        name: d.name,
        token_hash: d.tokenHash,
        expires_at: d.expiresAt,
        revoked_at: null,
        ...createdColumns(decoded),
      };
    }
    case 'PersonalAccessTokenRevoked': {
      // An event for a row that was never created is ignored (cannot happen with a valid stream).
      if (!row) return undefined;
      const next = touched(row, decoded);
      return { ...next, revoked_at: next.updated_at };
    }
  }
}

/** The personal_access_tokens read model: one row per token, revoked ones included. */
export const personalAccessTokensProjection = rowProjection<PersonalAccessTokenRow>({
  name: 'personal_access_tokens',
  table: 'personal_access_tokens',
  columns: {
    id: 'uuid',
    user_id: 'uuid',
    name: 'text',
    token_hash: 'text',
    expires_at: 'timestamptz',
    revoked_at: 'timestamptz',
    revision: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  links: [],
  handles: personalAccessTokenEvents.map((d) => d.type),
  rowId: (event) => STREAMS.personal_access_token.parse(event.streamId),
  evolve,
});
