import { AppError } from '../errors.js';
import type { AccessEvent } from '../events/access.js';
import type { PermissionLevel } from '../model/permissions.js';
import { defineAggregate } from './decider.js';

/** Who a grant is for. */
export interface GrantSubject {
  readonly subjectType: 'user' | 'team';
  readonly subjectId: string;
}

/** One grant on the entity. */
export interface EntityGrant extends GrantSubject {
  readonly level: PermissionLevel;
}

/** What can be asked of an entity's grants (the edge has checked the caller, the entity and the subject). */
export type AccessCommand =
  { readonly type: 'Grant'; readonly data: EntityGrant & EntityRef } | { readonly type: 'Revoke'; readonly data: GrantSubject & EntityRef };

/** The entity the grants are on. */
interface EntityRef {
  readonly entityKind: string;
  readonly entityId: string;
}

/** The grants on one entity, by `subjectType:subjectId`. */
export interface AccessState {
  readonly status: 'active';
  readonly entityId: string | null;
  readonly grants: ReadonlyMap<string, EntityGrant>;
}

const keyOf = (subject: GrantSubject): string => `${subject.subjectType}:${subject.subjectId}`;

/** An entity's grants: granting the level a subject already has, or revoking none, writes nothing. */
export const accessAggregate = defineAggregate<AccessCommand, AccessEvent, AccessState>('access', {
  initialState: { status: 'active', entityId: null, grants: new Map() },
  decide(command, state) {
    const existing = state.grants.get(keyOf(command.data));
    if (command.type === 'Grant') {
      if (existing?.level === command.data.level) return [];
      return [{ type: 'EntityAccessGranted', data: command.data }];
    }
    if (!existing) throw new AppError('NOT_FOUND', `${command.data.subjectType} ${command.data.subjectId} holds no grant on this entity`);
    return [{ type: 'EntityAccessRevoked', data: command.data }];
  },
  evolve(state, event) {
    const grants = new Map(state.grants);
    if (event.type === 'EntityAccessGranted') {
      const { subjectType, subjectId, level } = event.data;
      grants.set(keyOf(event.data), { subjectType, subjectId, level });
    } else grants.delete(keyOf(event.data));
    return { status: 'active', entityId: event.data.entityId, grants };
  },
});
