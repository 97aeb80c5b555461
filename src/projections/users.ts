import type { Selectable } from 'kysely';
import type { UsersTable } from '../storage/schema.js';
import type { DecodedEvent } from '../events/codec.js';
import { identityEvents, type UserEvent } from '../events/identity.js';
import { createdByColumns, rowProjection, touched } from './row-projection.js';
import { STREAMS } from '../events/streams.js';

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

function evolve(row: UserRow | undefined, decoded: DecodedEvent): UserRow | undefined {
  const event = decoded.event as UserEvent;
  if (event.type === 'UserCreated') {
    const d = event.data;
    return {
      id: d.id,
      kind: d.kind,
      identifier: d.identifier,
      email: d.email,
      display_name: d.displayName,
      provider: d.provider,
      subject: d.subject,
      roles: d.roles,
      grants: d.grants,
      deactivated: false,
      external_groups: [],
      sessions_revoked_before: null,
      ...createdByColumns(decoded),
    };
  }
  if (!row) return undefined;
  const next = touched(row, decoded);
  switch (event.type) {
    case 'UserUpdated': {
      const c = event.data.changes;
      return {
        ...next,
        ...(c.displayName !== undefined && { display_name: c.displayName }),
        ...(c.email !== undefined && { email: c.email }),
        ...(c.roles !== undefined && { roles: c.roles }),
        ...(c.grants !== undefined && { grants: c.grants }),
      };
    }
    case 'UserPasswordChanged':
    case 'UserPasswordRehashed':
      return next;
    case 'UserDeactivated':
      return { ...next, deactivated: true };
    case 'UserReactivated':
      return { ...next, deactivated: false };
    case 'UserSessionsRevoked':
      return { ...next, sessions_revoked_before: event.data.before };
    case 'UserGroupsObserved':
      return { ...next, external_groups: event.data.groups };
  }
}

/** The users read model. */
export const usersProjection = rowProjection<UserRow>({
  name: 'users',
  table: 'users',
  columns: {
    id: 'uuid',
    kind: 'text',
    identifier: 'text',
    email: 'text',
    display_name: 'text',
    provider: 'text',
    subject: 'text',
    roles: 'text[]',
    grants: 'text[]',
    deactivated: 'boolean',
    external_groups: 'text[]',
    sessions_revoked_before: 'timestamptz',
    creator_id: 'uuid',
    revision: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  links: [],
  handles: identityEvents.map((d) => d.type).filter((t) => USER_EVENTS.has(t)),
  rowId: (event) => STREAMS.user.parse(event.streamId),
  evolve,
});
