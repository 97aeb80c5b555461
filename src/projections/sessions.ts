import type { DecodedEvent } from '../events/codec.js';
import type { SessionEvent } from '../events/identity.js';
import { rowProjection } from './row-projection.js';
import { STREAMS } from '../events/streams.js';

/** A `sessions` row: what the authenticator checks on every request (ended? expired?). */
export interface SessionRow {
  id: string;
  user_id: string;
  method: string;
  provider: string | null;
  expires_at: string;
  ended_at: string | null;
  end_reason: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

function evolve(row: SessionRow | undefined, decoded: DecodedEvent): SessionRow | undefined {
  const event = decoded.event as SessionEvent;
  const at = decoded.metadata.occurredAt;
  const revision = Number(decoded.streamRevision) + 1;
  if (event.type === 'SessionStarted') {
    const d = event.data;
    return { id: d.id, user_id: d.userId, method: d.method, provider: d.provider, expires_at: d.expiresAt, ended_at: null, end_reason: null, revision, created_at: at, updated_at: at };
  }
  if (!row) return undefined;
  if (event.type === 'SessionRefreshed') return { ...row, revision, updated_at: at, expires_at: event.data.expiresAt };
  return { ...row, revision, updated_at: at, ended_at: at, end_reason: event.data.reason };
}

export const sessionsProjection = rowProjection<SessionRow>({
  name: 'sessions',
  table: 'sessions',
  columns: {
    id: 'uuid',
    user_id: 'uuid',
    method: 'text',
    provider: 'text',
    expires_at: 'timestamptz',
    ended_at: 'timestamptz',
    end_reason: 'text',
    revision: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  links: [],
  handles: ['SessionStarted', 'SessionRefreshed', 'SessionEnded'],
  rowId: (event) => STREAMS.session.parse(event.streamId),
  evolve,
});
