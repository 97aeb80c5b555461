import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { contentRange, listPage, parseListQuery } from '../../read/list-query.js';
import { authProviderListSpec } from '../../read/list-specs/auth-providers.js';
import {
  authProviderViewColumns,
  findAuthProvider,
  listLoginOptions,
  toAuthProviderView,
  type AuthProviderView,
} from '../../read/auth-providers.js';
import { notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { writesOf } from '../../edge/writes/registry.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';
import { registerWriteRoutes, restCall } from './catalog.js';

const PROJECTIONS = ['auth_providers'] as const;
const ADMIN = 'auth_provider:admin';

const idParams = z.object({ id: uuid });

/** `/auth_providers` (administrators only) and the public `/auth/providers`, under `/api`. */
export function authProviderRoutes(app: FastifyInstance, services: Services): void {
  const baseUrl = services.config.BASE_URL;

  const send = (reply: FastifyReply, view: AuthProviderView | undefined): FastifyReply => {
    if (!view) throw notFound('auth provider not found');
    return reply.header('ETag', `"${view.revision}"`).send(view);
  };

  app.get('/auth_providers', async (request, reply) => {
    authorize(request, ADMIN);
    const query = parseListQuery(authProviderListSpec, request.query as Record<string, unknown>, {
      maxPageSize: services.config.MAX_PAGE_SIZE,
      defaultPageSize: 100,
    });
    await awaitMinPosition(request, services, PROJECTIONS);
    const { rows, total } = await listPage(services.db, authProviderListSpec, query, authProviderViewColumns);
    const range = contentRange(authProviderListSpec, query, rows.length, total);
    return reply.header('Content-Range', range).send(rows.map((row) => toAuthProviderView(row, baseUrl)));
  });

  app.get('/auth_providers/:id', async (request, reply) => {
    authorize(request, ADMIN);
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, PROJECTIONS);
    return send(reply, await findAuthProvider(services.db, id, baseUrl));
  });

  const writes = writesOf(services).auth_provider;
  registerWriteRoutes(
    app,
    'auth_providers',
    { ...writes, remove: undefined },
    (id) => findAuthProvider(services.db, id, baseUrl),
    'auth provider',
  );
  // A deleted provider answers 204 (its tombstone is not shown).
  app.delete('/auth_providers/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const written = await writes.remove(restCall(request), id);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return reply.status(204).send();
  });

  // The login page lists these before anyone has signed in.
  app.get('/auth/providers', { config: { public: true } }, async (request, reply) => {
    await awaitMinPosition(request, services, PROJECTIONS);
    return reply.send(await listLoginOptions(services.db));
  });
}
