import type { FastifyInstance } from 'fastify';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import { effectivePermissions } from '../../model/permissions.js';
import { applyFilters, applyPage, contentRange, parseListQuery } from '../../read/list-query.js';
import { userListSpec } from '../../read/list-specs/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { writesOf } from '../../edge/writes/registry.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';
import { registerWriteRoutes } from './catalog.js';

const idParams = z.object({ id: uuid });

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
  const find = (id: string) => services.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

  const findView = async (id: string) => {
    const row = await find(id);
    return row && toUserView(row);
  };

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

  registerWriteRoutes(app, 'users', writesOf(services).user, findView, 'user');
}
