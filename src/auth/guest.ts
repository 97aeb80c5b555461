import { executeCommand } from '../commands/handler.js';
import { userAggregate } from '../commands/user.js';
import { AppError } from '../errors.js';
import type { CommandContext } from '../events/define.js';
import { ROLES } from '../model/permissions.js';
import { findUserByIdentifier, startSession, type IssuedToken, type SignInDeps } from './sign-in.js';

/** The one predefined identity every guest shares. */
export const GUEST_IDENTIFIER = 'guest';

/**
 * Guest sign-in (seed: "unauthenticated shared identity", for local development only): a browser
 * session for the shared `guest` user, whose role follows the enabled guest provider's `role`.
 */
export async function guestLogin(deps: SignInDeps, address: string, context: CommandContext): Promise<IssuedToken> {
  // The shared guest is no one's identifier to guess: only the address counts.
  await deps.limiter.admit(address, undefined, context.now);
  const provider = await deps.db
    .selectFrom('auth_providers')
    .select(['key', 'configuration'])
    .where('type', '=', 'guest')
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!provider) throw new AppError('UNAUTHENTICATED', 'guest sign-in is disabled');
  const configured = provider.configuration.role;
  const role = typeof configured === 'string' && (ROLES as readonly string[]).includes(configured) ? configured : 'default';
  deps.log.warn({ provider: provider.key, role }, 'guest sign-in: the guest provider is insecure, for development only');

  let guest = await findUserByIdentifier(deps, GUEST_IDENTIFIER);
  if (!guest) {
    const id = deps.newId();
    await executeCommand(
      deps,
      userAggregate,
      id,
      {
        type: 'CreateUser',
        data: {
          id,
          kind: 'guest',
          identifier: GUEST_IDENTIFIER,
          email: null,
          displayName: 'Guest',
          provider: provider.key,
          subject: null,
          roles: [role],
          grants: [],
          passwordHash: null,
        },
      },
      context,
    ).catch((error: unknown) => {
      // Two first guests at once: the other one created it.
      if (!(error instanceof AppError) || error.category !== 'CONFLICT') throw error;
    });
    guest = await findUserByIdentifier(deps, GUEST_IDENTIFIER);
  }
  if (!guest) throw new AppError('UNAVAILABLE', 'the guest identity could not be created; try again');
  if (guest.state.deactivated) throw new AppError('UNAUTHENTICATED', 'user deactivated');
  if (guest.state.fields.roles.join() !== role) {
    await executeCommand(deps, userAggregate, guest.id, { type: 'UpdateUser', data: { changes: { roles: [role] } } }, context);
  }
  return startSession(
    deps,
    { userId: guest.id, identifier: GUEST_IDENTIFIER, method: 'guest', provider: provider.key, browser: true },
    context,
  );
}
