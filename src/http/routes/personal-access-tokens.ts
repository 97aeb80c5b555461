import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { writesOf } from '../../edge/writes/registry.js';
import { parseInput, canonicalUuid } from '../../validation.js';
import { restCall } from './catalog.js';
import { personalAccessTokenEntity } from '../../model/personal-access-token.js';
import { accountView, accountViewColumns, type AccountView } from '../../read/accounts.js';
import type { PersonalAccessTokensTable } from '../../storage/schema.js';

const idParams = z.object({ id: canonicalUuid });

/** One token as its owner sees it in the list (src/model/personal-access-token.ts): never the token or its hash. */
export type PersonalAccessTokenView = AccountView<typeof personalAccessTokenEntity>;

const toView = accountView(personalAccessTokenEntity);
const VIEW_COLUMNS = accountViewColumns(personalAccessTokenEntity) as (keyof PersonalAccessTokensTable)[];

/** `/personal_access_tokens` under `/api`: create (the secret is shown once), list own, revoke. */
export function personalAccessTokenRoutes(app: FastifyInstance, services: Services): void {
  const writes = writesOf(services).personal_access_token;

  app.post('/personal_access_tokens', async (request, reply) => {
    const { written, created } = await writes.create(restCall(request), request.body);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    // The only response that ever carries the secret: keep it out of every cache.
    return reply.status(201).header('Cache-Control', 'no-store').send(created);
  });

  app.get('/personal_access_tokens', async (request, reply) => {
    const principal = authorize(request);
    await awaitMinPosition(request, services, writes.projections);
    const rows = await services.db
      .selectFrom('personal_access_tokens')
      .select(VIEW_COLUMNS)
      .where('user_id', '=', principal.userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return reply.send(rows.map(toView));
  });

  app.delete('/personal_access_tokens/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const written = await writes.revoke(restCall(request), id);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return reply.status(204).send();
  });
}
