import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import { hashPassword } from '../../auth/passwords.js';
import { effectivePermissions, parseGrant, ROLES } from '../../model/permissions.js';
import { executeCommand, loadAggregate } from '../../commands/handler.js';
import { userAggregate, type UserCommand } from '../../commands/user.js';
import { applyFilters, applyPage, contentRange, parseListQuery } from '../../read/list-query.js';
import { userListSpec } from '../../read/list-specs/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { AppError, notFound } from '../../errors.js';
import type { StreamWrite } from '../../events/store/port.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { awaitMinPosition, parseIfMatch } from '../../edge/headers.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';

const roles = z.array(z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` })).max(3).refine((r) => new Set(r).size === r.length, 'must not repeat a role');
const grants = z
  .array(z.string().refine((g) => parseGrant(g) !== undefined, 'must be {entity}:{read|write|admin} with a known entity'))
  .max(100)
  .refine((g) => new Set(g).size === g.length, 'must not repeat a grant');
const password = z.string().min(12, 'at least 12 characters').max(1024, 'at most 1024 characters');
const optionalText = (max: number) => z.string().trim().max(max, `at most ${max} characters`).nullable();

/** POST /api/users: only service accounts are created here (people arrive through sign-in). */
export const createUserBody = z.strictObject({
  kind: z.literal('service_account', { message: 'only service accounts are created here; people sign in through a provider' }),
  identifier: z.string().regex(/^[A-Za-z0-9._@-]{1,100}$/, 'must be 1-100 letters, digits or . _ @ -'),
  password,
  displayName: optionalText(200).optional(),
  email: z.email({ message: 'must be an e-mail address' }).nullable().optional(),
  roles: roles.default(['default']),
  grants: grants.default([]),
});

/** PATCH /api/users/{id} body. */
export const patchUserBody = z.strictObject({ displayName: optionalText(200), email: z.email({ message: 'must be an e-mail address' }).nullable(), roles, grants, password }).partial();

const idParams = z.object({ id: uuid });
/** The path of a user action. */
export const actionParams = z.object({ id: uuid, action: z.enum(['deactivate', 'reactivate', 'revoke_sessions'], { message: 'unknown action; allowed: deactivate, reactivate, revoke_sessions' }) });

type UserRow = Selectable<UsersTable>;

/** A user as the REST API shows it. */
export const toUserView = (row: UserRow) => ({
  id: row.id,
  kind: row.kind,
  identifier: row.identifier,
  email: row.email,
  displayName: row.display_name,
  name: row.display_name ?? row.identifier,
  provider: row.provider,
  roles: row.roles,
  grants: row.grants,
  permissions: effectivePermissions(row.roles, row.grants),
  deactivated: row.deactivated,
  revision: row.revision,
  creatorId: row.creator_id,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** The users REST surface (super only, but for a caller's own record). */
export function userRoutes(app: FastifyInstance, services: Services): void {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  const find = (id: string) => services.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

  /**
   * Refuses to leave the service without an active super user (demotion or deactivation). The
   * candidates come from the read model; each is confirmed in the write model and its revision
   * asserted in the same append, so two supers demoting each other at once cannot both succeed.
   */
  const keepsASuper =
    (id: string) =>
    async (): Promise<StreamWrite[]> => {
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
      throw new AppError('CONFLICT', 'refused: this is the last active super user');
    };

  async function run(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    commands: UserCommand[],
    options: { status?: number; guards?: () => Promise<StreamWrite[]> } = {},
  ): Promise<FastifyReply> {
    const expectedRevision = parseIfMatch(request);
    let position: bigint | undefined;
    for (const [i, command] of commands.entries()) {
      const result = await executeCommand(deps, userAggregate, id, command, {
        ...commandContext(request, services.now()),
        expectedRevision: i === 0 ? expectedRevision : undefined,
        guards: i === 0 ? options.guards : undefined,
      });
      position = result.position ?? position;
    }
    if (position !== undefined) {
      await services.waitFor(['users'], position);
      void reply.header('X-Position', String(position));
    }
    const row = await find(id);
    if (!row) throw notFound('user not found');
    return reply.status(options.status ?? 200).header('ETag', `"${row.revision}"`).send(toUserView(row));
  }

  app.get('/users', async (request, reply) => {
    authorize(request, 'user:read');
    const query = parseListQuery(userListSpec, request.query as Record<string, unknown>, { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 });
    await awaitMinPosition(request, services, ['users']);
    const page = applyPage(applyFilters(services.db.selectFrom('users').selectAll(), userListSpec, query), userListSpec, query);
    const count = applyFilters(services.db.selectFrom('users').select((eb) => eb.fn.countAll<string>().as('total')), userListSpec, query);
    const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
    return reply.header('Content-Range', contentRange(userListSpec, query, rows.length, Number(counted.total))).send(rows.map(toUserView));
  });

  app.get('/users/:id', async (request, reply) => {
    authorize(request, 'user:read');
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, ['users']);
    const row = await find(id);
    if (!row) throw notFound('user not found');
    return reply.header('ETag', `"${row.revision}"`).send(toUserView(row));
  });

  app.post('/users', async (request, reply) => {
    authorize(request, 'user:admin');
    const body = parseInput(createUserBody, request.body === undefined ? {} : request.body, 'body');
    const id = services.newId();
    const data = {
      id,
      kind: body.kind,
      identifier: body.identifier,
      email: body.email ?? null,
      displayName: body.displayName ?? null,
      provider: 'svc_service_account',
      subject: null,
      roles: body.roles,
      grants: body.grants,
      passwordHash: await hashPassword(body.password),
    };
    void reply.header('Location', `/api/users/${id}`);
    return run(request, reply, id, [{ type: 'CreateUser', data }], { status: 201 });
  });

  app.patch('/users/:id', async (request, reply) => {
    authorize(request, 'user:admin');
    const { id } = parseInput(idParams, request.params, 'path');
    const { password: newPassword, ...changes } = parseInput(patchUserBody, request.body === undefined ? {} : request.body, 'body');
    const demotes = changes.roles !== undefined && !changes.roles.includes('super') && (await find(id))?.roles.includes('super') === true;
    const commands: UserCommand[] = [{ type: 'UpdateUser', data: { changes } }];
    if (newPassword !== undefined) commands.push({ type: 'ChangePassword', data: { passwordHash: await hashPassword(newPassword) } });
    return run(request, reply, id, commands, { guards: demotes ? keepsASuper(id) : undefined });
  });

  app.post('/users/:id/actions/:action', async (request, reply) => {
    authorize(request, 'user:admin');
    const { id, action } = parseInput(actionParams, request.params, 'path');
    const now = services.now().toISOString();
    if (action === 'deactivate') {
      const isSuper = (await find(id))?.roles.includes('super') === true;
      // Deactivation also revokes every token issued so far: reactivating must not revive them.
      return run(request, reply, id, [{ type: 'DeactivateUser' }, { type: 'RevokeSessions', data: { before: now } }], { guards: isSuper ? keepsASuper(id) : undefined });
    }
    return run(request, reply, id, [action === 'reactivate' ? { type: 'ReactivateUser' } : { type: 'RevokeSessions', data: { before: now } }]);
  });
}
