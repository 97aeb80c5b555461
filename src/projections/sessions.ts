import type { DecodedEvent } from '../events/codec.js';
import type { SessionEvent } from '../events/identity.js';
import { sessionEntity } from '../model/session.js';
import { accountProjection } from './account-projection.js';

/** A `sessions` row: what the authenticator checks on every request (ended? expired?). Timestamps as ISO text. */
export interface SessionRow {
  [column: string]: unknown;
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

/** A refresh moves the expiry; an end records when and why (the start is the declaration's). */
function evolve(row: SessionRow, decoded: DecodedEvent): SessionRow {
  const event = decoded.event as SessionEvent;
  if (event.type === 'SessionRefreshed') return { ...row, expires_at: event.data.expiresAt };
  if (event.type === 'SessionEnded') return { ...row, ended_at: row.updated_at, end_reason: event.data.reason };
  return row;
}

/** The sessions read model (src/model/session.ts). */
export const sessionsProjection = accountProjection<SessionRow>(sessionEntity, {
  created: 'SessionStarted',
  handles: ['SessionStarted', 'SessionRefreshed', 'SessionEnded'],
  evolve,
});
