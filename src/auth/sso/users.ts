import { executeCommand, type CommandDeps } from '../../commands/handler.js';
import { userAggregate } from '../../commands/user.js';
import { AppError } from '../../errors.js';
import { findUserByUniqueKey } from '../sign-in.js';
import type { CommandContext } from '../../events/define.js';

/** A user an identity provider vouched for. */
export interface ExternalUser {
  readonly id: string;
  readonly identifier: string;
  readonly deactivated: boolean;
  /** Credentials issued at or before this instant are refused (revoke_sessions, deactivation). */
  readonly sessionsRevokedBefore: string | null;
  /** Whether this call created the user (first sign-in). */
  readonly created: boolean;
}

/** Who the provider says signed in, as the user record keeps it. */
export interface ExternalIdentity {
  readonly subject: string;
  readonly email: string | null;
  readonly displayName: string | null;
  /** The groups this sign-in reported (Backstage `ent`, an OIDC groups claim); absent: left as they are. */
  readonly groups?: readonly string[];
}

/**
 * Records the groups a sign-in reported on the user (an event only when they changed): the teams
 * naming one count the user as a member from then on (docs/contract.md §6).
 */
export async function observeGroups(
  deps: CommandDeps,
  userId: string,
  groups: readonly string[],
  context: CommandContext,
): Promise<bigint | undefined> {
  const result = await executeCommand(
    deps,
    userAggregate,
    userId,
    { type: 'ObserveGroups', data: { groups } },
    { ...context, actorId: userId },
  );
  return result.position;
}

const later = (a: bigint | undefined, b: bigint | undefined): bigint | undefined =>
  a === undefined ? b : b === undefined || a > b ? a : b;

/** The user of (provider key, subject), through its reservation stream (the write model, no lag). */
export const findUserBySubject = (deps: CommandDeps, provider: string, subject: string) =>
  findUserByUniqueKey(deps, `user-subject:${provider}:${subject}`);

const conflictOn = (error: unknown, field: string): boolean =>
  error instanceof AppError && error.code === 'NOT_UNIQUE' && error.errors.some((e) => e.field === field);

/**
 * Finds the user an identity provider knows as `subject` — matched by (provider key, subject), never
 * by e-mail (docs/contract.md §5) — or creates it with role `default` on first sign-in. The identifier is the
 * first free one of `identifiers` (an e-mail another user already holds falls back to
 * `<provider>:<subject>`, which is always free). The e-mail and display name follow the provider's.
 * @returns the user and whether it was created now
 */
export async function findOrCreateUser(
  deps: CommandDeps,
  provider: string,
  identity: ExternalIdentity,
  identifiers: readonly string[],
  context: CommandContext,
): Promise<{ user: ExternalUser; position: bigint | undefined }> {
  const existing = await findUserBySubject(deps, provider, identity.subject);
  if (existing) {
    const { fields } = existing.state;
    const changes = {
      ...(identity.email !== null && identity.email !== fields.email && { email: identity.email }),
      ...(identity.displayName !== null && identity.displayName !== fields.displayName && { displayName: identity.displayName }),
    };
    const result =
      Object.keys(changes).length > 0 && !existing.state.deactivated
        ? await executeCommand(
            deps,
            userAggregate,
            existing.id,
            { type: 'UpdateUser', data: { changes } },
            { ...context, actorId: existing.id },
          )
        : undefined;
    const { deactivated, sessionsRevokedBefore } = existing.state;
    const observed =
      identity.groups !== undefined && !deactivated ? await observeGroups(deps, existing.id, identity.groups, context) : undefined;
    return {
      user: { id: existing.id, identifier: fields.identifier, deactivated, sessionsRevokedBefore, created: false },
      position: later(result?.position, observed),
    };
  }
  const candidates = [...new Set([...identifiers, `${provider}:${identity.subject}`])];
  for (const identifier of candidates) {
    const id = deps.newId();
    try {
      const result = await executeCommand(
        deps,
        userAggregate,
        id,
        {
          type: 'CreateUser',
          data: {
            id,
            kind: 'human',
            identifier,
            email: identity.email,
            displayName: identity.displayName,
            provider,
            subject: identity.subject,
            roles: ['default'],
            grants: [],
            passwordHash: null,
          },
        },
        { ...context, actorId: id },
      );
      const observed =
        identity.groups !== undefined && identity.groups.length > 0 ? await observeGroups(deps, id, identity.groups, context) : undefined;
      return {
        user: { id, identifier, deactivated: false, sessionsRevokedBefore: null, created: true },
        position: later(result.position, observed),
      };
    } catch (error) {
      if (conflictOn(error, 'subject')) {
        // A concurrent first sign-in of the same person created it: use that one.
        const raced = await findUserBySubject(deps, provider, identity.subject);
        if (raced) {
          const { deactivated, sessionsRevokedBefore, fields } = raced.state;
          return {
            user: { id: raced.id, identifier: fields.identifier, deactivated, sessionsRevokedBefore, created: false },
            position: undefined,
          };
        }
      }
      if (!conflictOn(error, 'identifier')) throw error;
    }
  }
  throw new AppError('CONFLICT', `no free identifier for ${provider} subject ${identity.subject}`);
}
