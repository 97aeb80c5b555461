import type { Selectable } from 'kysely';
import type { UsersTable } from '../storage/schema.js';
import type { DecodedEvent } from '../events/codec.js';
import { identityEvents, type UserEvent } from '../events/identity.js';
import { userEntity } from '../model/user.js';
import { accountProjection } from './account-projection.js';

/** A `users` row as the projection folds it (no password hash: it never leaves the event store). */
export type UserRow = Omit<Selectable<UsersTable>, 'sessions_revoked_before' | 'created_at' | 'updated_at'> & {
  sessions_revoked_before: string | null;
  created_at: string;
  updated_at: string;
};

const USER_EVENTS = new Set<string>([
  'UserCreated',
  'UserUpdated',
  'UserPasswordChanged',
  'UserPasswordRehashed',
  'UserDeactivated',
  'UserReactivated',
  'UserSessionsRevoked',
  'UserGroupsObserved',
]);

/** What a user's own events (beyond created and updated, which the declaration maps) do to the row. */
function evolve(row: UserRow, decoded: DecodedEvent): UserRow {
  const event = decoded.event as UserEvent;
  switch (event.type) {
    case 'UserDeactivated':
      return { ...row, deactivated: true };
    case 'UserReactivated':
      return { ...row, deactivated: false };
    case 'UserSessionsRevoked':
      return { ...row, sessions_revoked_before: event.data.before };
    case 'UserGroupsObserved':
      return { ...row, external_groups: event.data.groups };
    default:
      // A password change or rehash: only the revision moves (the hash never reaches the read model).
      return row;
  }
}

/** The users read model: the declared fields' columns (src/model/user.ts) and the state the user's events set. */
export const usersProjection = accountProjection<UserRow>(userEntity, {
  created: 'UserCreated',
  updated: 'UserUpdated',
  handles: identityEvents.map((d) => d.type).filter((t) => USER_EVENTS.has(t)),
  evolve,
});
