import { z } from 'zod';
import { accessAggregate } from '../../commands/access.js';
import { loadAggregate } from '../../commands/handler.js';
import { teamAggregate } from '../../commands/team.js';
import { userAggregate } from '../../commands/user.js';
import { AppError, notFound } from '../../errors.js';
import { declarationOf } from '../../model/catalog.js';
import { LEVELS, type PermissionResource } from '../../model/permissions.js';
import { relationTo } from '../../read/entity-access.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { authorizeOnEntity } from '../entity-authority.js';
import { commandDeps, runCommand, type WriteCall, type Written } from './write.js';

/** The projection a grant's answer waits for. */
export const GRANTS_PROJECTION = 'entity_grants';

/** Who a grant is for and at which level. */
export const grantBody = z.strictObject({
  subjectType: z.enum(['user', 'team'], { message: 'must be user or team' }),
  subjectId: canonicalUuid,
  level: z.enum(LEVELS, { message: `must be one of ${LEVELS.join(', ')}` }),
});

/** The subject of a revoke, from the path. */
export const grantSubject = grantBody.pick({ subjectType: true, subjectId: true });

/**
 * Grants on single entities (docs/contract.md §6): given and taken by those with `admin` on the
 * entity, to an existing user or team. The same operations serve REST and GraphQL.
 */
export function accessWrites(services: Services) {
  const deps = commandDeps(services);

  /** The entity's kind and table, after checking the caller administers it and it exists. */
  async function administered(call: WriteCall, kind: string, entityId: string): Promise<PermissionResource> {
    const entity = declarationOf(kind);
    if (!entity) throw notFound(`${kind} not found`);
    const resource = kind as PermissionResource;
    const table = { resource, table: entity.table };
    const principal = await authorizeOnEntity(services, call, table, entityId, 'admin', 'grant access to');
    if (!(await relationTo(services.db, principal.userId, entity.table, entityId, kind === 'team' ? 'id' : 'owner_id'))) {
      throw notFound(`${kind.replaceAll('_', ' ')} not found`);
    }
    return resource;
  }

  /** 422 when the subject is not a live user or team. */
  async function checkSubject(subjectType: 'user' | 'team', subjectId: string): Promise<void> {
    const state =
      subjectType === 'team'
        ? (await loadAggregate(deps, teamAggregate, subjectId)).state
        : (await loadAggregate(deps, userAggregate, subjectId)).state;
    if (state.status !== 'active') {
      const message = `${subjectType} ${subjectId} does not exist`;
      throw new AppError('UNPROCESSABLE', `invalid grant: ${message}`, { errors: [{ field: 'subjectId', message }] });
    }
  }

  return {
    async grant(call: WriteCall, kind: string, entityId: string, body: unknown): Promise<Written> {
      const entityKind = await administered(call, kind, entityId);
      const grant = parseInput(grantBody, body ?? {}, 'body');
      await checkSubject(grant.subjectType, grant.subjectId);
      return runCommand(
        services,
        call,
        accessAggregate,
        [GRANTS_PROJECTION],
        entityId,
        { type: 'Grant', data: { ...grant, entityKind, entityId } },
        { expectedRevision: undefined },
      );
    },
    async revoke(call: WriteCall, kind: string, entityId: string, subject: unknown): Promise<Written> {
      const entityKind = await administered(call, kind, entityId);
      const { subjectType, subjectId } = parseInput(grantSubject, subject, 'path');
      return runCommand(
        services,
        call,
        accessAggregate,
        [GRANTS_PROJECTION],
        entityId,
        { type: 'Revoke', data: { subjectType, subjectId, entityKind, entityId } },
        { expectedRevision: undefined },
      );
    },
  };
}
