import type { FastifyInstance } from 'fastify';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import { effectivePermissions } from '../../model/permissions.js';
import { contentRange, listPage, parseListQuery } from '../../read/list-query.js';
import { userListSpec } from '../../read/list-specs/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { writesOf } from '../../edge/writes/registry.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';
import { registerWriteRoutes } from './catalog.js';
import { accountView, accountViewColumns } from '../../read/accounts.js';
import { userEntity } from '../../model/user.js';

const idParams = z.object({ id: uuid });

/** The columns a user's view shows (not its sign-in subject, groups or session cut-off: the declaration hides them). */
const USER_VIEW_COLUMNS = accountViewColumns(userEntity) as (keyof UsersTable)[];

type UserRow = Pick<Selectable<UsersTable>, 'display_name' | 'identifier' | 'roles' | 'grants'>;

const userFieldsView = accountView(userEntity);

/** A user as the REST API shows it: the declared fields, the name to show and what the roles and grants allow. */
export const toUserView = (row: UserRow) => ({
  ...userFieldsView(row),
  name: row.display_name ?? row.identifier,
  permissions: effectivePermissions(row.roles, row.grants),
});

/** The users REST surface (super only, but for a caller's own record). */
export function userRoutes(app: FastifyInstance, services: Services): void {
  const find = (id: string) => services.db.selectFrom('users').select(USER_VIEW_COLUMNS).where('id', '=', id).executeTakeFirst();

  const findView = async (id: string) => {
    const row = await find(id);
    return row && toUserView(row);
  };

  app.get('/users', async (request, reply) => {
    authorize(request, 'user:read');
    const query = parseListQuery(userListSpec, request.query as Record<string, unknown>, {
      maxPageSize: services.config.MAX_PAGE_SIZE,
      defaultPageSize: 100,
    });
    await awaitMinPosition(request, services, ['users']);
    const { rows, total } = await listPage(services.db, userListSpec, query, USER_VIEW_COLUMNS);
    return reply.header('Content-Range', contentRange(userListSpec, query, rows.length, total)).send(rows.map(toUserView));
  });

  app.get('/users/:id', async (request, reply) => {
    authorize(request, 'user:read');
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, ['users']);
    const row = await find(id);
    if (!row) throw notFound('user not found');
    return reply.header('ETag', `"${row.revision}"`).send(toUserView(row));
  });

  registerWriteRoutes(app, 'users', writesOf(services).user, findView, 'user');
}
