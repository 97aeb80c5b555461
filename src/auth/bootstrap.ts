import { randomBytes } from 'node:crypto';
import { authProviderAggregate } from '../commands/auth-provider.js';
import { executeCommand } from '../commands/handler.js';
import { userAggregate } from '../commands/user.js';
import { AppError } from '../errors.js';
import { findUserByIdentifier, type SignInDeps } from './sign-in.js';

/** The identifier of the super service account created at first start. */
export const ADMIN_IDENTIFIER = 'admin';

const ignoreConflict = (error: unknown): void => {
  // Another replica bootstrapping at the same moment won the reservation: nothing left to do.
  if (!(error instanceof AppError) || error.category !== 'CONFLICT') throw error;
};

/**
 * First start with no `admin`: creates the enabled `svc_service_account` provider and the `super`
 * service account `admin`, with INITIAL_ADMIN_PASSWORD or a generated password printed once.
 * Idempotent across restarts and replicas (uniqueness reservations decide who creates what).
 */
export async function bootstrap(deps: SignInDeps, initialPassword: string | undefined, now: Date): Promise<void> {
  if (await findUserByIdentifier(deps, ADMIN_IDENTIFIER)) return;
  const context = { actorId: null, correlationId: 'bootstrap', causationId: null, now };
  const providerId = deps.newId();
  const provider = await executeCommand(
    deps,
    authProviderAggregate,
    providerId,
    {
      type: 'CreateAuthProvider',
      data: {
        id: providerId,
        key: 'svc_service_account',
        name: 'Service accounts',
        type: 'svc_service_account',
        description: 'Machine sign-in with identifier and password',
        enabled: true,
        configuration: { tokenTtlSeconds: 3600 },
        filterByDomain: [],
      },
    },
    context,
  ).catch(ignoreConflict);
  const password = initialPassword ?? randomBytes(18).toString('base64url');
  const adminId = deps.newId();
  const admin = await executeCommand(
    deps,
    userAggregate,
    adminId,
    {
      type: 'CreateUser',
      data: {
        id: adminId,
        kind: 'service_account',
        identifier: ADMIN_IDENTIFIER,
        email: null,
        displayName: 'Administrator',
        provider: 'svc_service_account',
        subject: null,
        roles: ['super'],
        grants: [],
        passwordHash: await deps.passwords.hash(password),
      },
    },
    context,
  ).catch(ignoreConflict);
  if (!admin) return;
  const positions = [provider?.position, admin.position].filter((p): p is bigint => p !== undefined);
  if (positions.length > 0)
    await deps.waitFor(
      ['users', 'auth_providers'],
      positions.reduce((a, b) => (a > b ? a : b)),
    );
  if (initialPassword) {
    deps.log.info({ identifier: ADMIN_IDENTIFIER }, 'created the super service account "admin" with INITIAL_ADMIN_PASSWORD');
  } else {
    // Printed once, in the message itself (field redaction would blank a `password` field).
    deps.log.warn(`created the super service account "admin"; its generated password, shown only now: ${password}`);
  }
}
