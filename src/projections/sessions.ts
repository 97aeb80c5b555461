import type { DecodedEvent } from '../events/codec.js';
import type { SessionEvent } from '../events/identity.js';
import { createdColumns, rowProjection, touched } from './row-projection.js';
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
  if (event.type === 'SessionStarted') {
    const d = event.data;
    return {
      id: d.id,
      user_id: d.userId,
      method: d.method,
      provider: d.provider,
      expires_at: d.expiresAt,
      ended_at: null,
      end_reason: null,
      ...createdColumns(decoded),
    };
  }
  if (!row) return undefined;
  const next = touched(row, decoded);
  if (event.type === 'SessionRefreshed') return { ...next, expires_at: event.data.expiresAt };
  return { ...next, ended_at: next.updated_at, end_reason: event.data.reason };
}

/** The sessions read model. */
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
