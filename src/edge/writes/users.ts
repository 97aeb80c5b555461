import { z } from 'zod';
import { loadAggregate } from '../../commands/handler.js';
import { userAggregate, type UserCommand } from '../../commands/user.js';
import { AppError } from '../../errors.js';
import type { StreamWrite } from '../../events/store/port.js';
import { accountCreateShape, accountPatchShape } from '../../model/account.js';
import { userEntity } from '../../model/user.js';
import type { Services } from '../../services.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from '../../password-policy.js';
import { parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { parseAction } from './catalog.js';
import { revokePersonalAccessTokens } from './personal-access-tokens.js';
import { commandDeps, runCommand, type WriteCall, type WriteOperations, type Written } from './write.js';

// docs/contract.md §5: at least 12 characters and not a common password (src/password-policy.ts).
// The lengths are zod's too, so the OpenAPI document shows them; the policy adds the rest.
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`)
  .superRefine((value, context) => {
    if (value.length < MIN_PASSWORD_LENGTH || value.length > MAX_PASSWORD_LENGTH) return; // said above
    const problem = passwordProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });
/** A new user (src/model/user.ts): only service accounts are created here (people arrive through sign-in). */
export const createUserBody = z.strictObject({ ...accountCreateShape(userEntity), password });

/** A user's changes: the updatable fields of the declaration, and a new password. */
export const patchUserBody = z.strictObject({ ...accountPatchShape(userEntity), password: password.optional() });

/** What can be done to a user besides editing. */
export const USER_ACTIONS = ['deactivate', 'reactivate', 'revoke_sessions'] as const;

const PROJECTIONS = ['users'] as const;

/** The users' writes (`user:admin`): create service accounts, edit, deactivate, reactivate, revoke sessions. */
export function userWrites(services: Services): WriteOperations {
  const deps = commandDeps(services);
  const find = (id: string) => services.db.selectFrom('users').select('roles').where('id', '=', id).executeTakeFirst();

  /**
   * Refuses to leave the service without an active super user (demotion or deactivation). The
   * candidates come from the read model; each is confirmed in the write model and its revision
   * asserted in the same append, so two supers demoting each other at once cannot both succeed.
   */
  const keepsASuper = (id: string) => async (): Promise<StreamWrite[]> => {
    const candidates = await services.db
      .selectFrom('users')
      .select('id')
      .where('id', '!=', id)
      .where('deactivated', '=', false)
      .where((eb) => eb(eb.val('super'), '=', eb.fn.any('roles')))
      .execute();
    for (const { id: other } of candidates) {
      const { state, revision } = await loadAggregate(deps, userAggregate, other);
      if (state.status === 'active' && !state.deactivated && state.fields.roles.includes('super') && revision !== undefined) {
        return [{ streamId: userAggregate.streamId(other), expectedRevision: revision, events: [] }];
      }
    }
    throw new AppError('LAST_SUPER_ACCESS', 'refused: this is the last active super user');
  };

  /** Runs the commands in order; only the first carries the expected revision and guards. */
  async function run(
    call: WriteCall,
    id: string,
    commands: readonly UserCommand[],
    guards?: () => Promise<StreamWrite[]>,
  ): Promise<Written> {
    let written: Written = { id, deleted: false };
    for (const [i, command] of commands.entries()) {
      const result = await runCommand(services, call, userAggregate, PROJECTIONS, id, command, {
        expectedRevision: i === 0 ? call.expectedRevision : undefined,
        guards: i === 0 ? guards : undefined,
      });
      written = { ...result, position: result.position ?? written.position };
    }
    return written;
  }

  return {
    projections: PROJECTIONS,
    actions: USER_ACTIONS,
    async create(call, input) {
      authorize(call.request, 'user:admin');
      const body = parseInput(createUserBody, input === undefined ? {} : input, 'body');
      const id = services.newId();
      const { password: written, ...fields } = body;
      const data = {
        ...fields,
        id,
        provider: 'svc_service_account',
        subject: null,
        passwordHash: await services.signIn.passwords.hash(written),
      };
      return run(call, id, [{ type: 'CreateUser', data }]);
    },
    async update(call, id, input) {
      authorize(call.request, 'user:admin');
      const { password: newPassword, ...changes } = parseInput(patchUserBody, input === undefined ? {} : input, 'body');
      const demotes = changes.roles !== undefined && !changes.roles.includes('super') && (await find(id))?.roles.includes('super') === true;
      const commands: UserCommand[] = [{ type: 'UpdateUser', data: { changes } }];
      // A new password ends every credential issued with the old one: sessions, tokens, PATs.
      if (newPassword !== undefined) {
        commands.push(
          { type: 'ChangePassword', data: { passwordHash: await services.signIn.passwords.hash(newPassword) } },
          { type: 'RevokeSessions', data: { before: services.now().toISOString() } },
        );
      }
      const written = await run(call, id, commands, demotes ? keepsASuper(id) : undefined);
      if (newPassword !== undefined) await revokePersonalAccessTokens(services, call, { userId: id }, 'password changed');
      return written;
    },
    async act(call, id, name) {
      authorize(call.request, 'user:admin');
      const action = parseAction(USER_ACTIONS, name);
      const now = services.now().toISOString();
      if (action === 'deactivate') {
        const isSuper = (await find(id))?.roles.includes('super') === true;
        // Deactivation also revokes every token issued so far: reactivating must not revive them.
        const written = await run(
          call,
          id,
          [{ type: 'DeactivateUser' }, { type: 'RevokeSessions', data: { before: now } }],
          isSuper ? keepsASuper(id) : undefined,
        );
        await revokePersonalAccessTokens(services, call, { userId: id }, 'user deactivated');
        return written;
      }
      if (action === 'reactivate') return run(call, id, [{ type: 'ReactivateUser' }]);
      const written = await run(call, id, [{ type: 'RevokeSessions', data: { before: now } }]);
      await revokePersonalAccessTokens(services, call, { userId: id }, 'sessions revoked');
      return written;
    },
  };
}
