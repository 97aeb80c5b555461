import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { writesOf } from '../../edge/writes/registry.js';
import { parseInput, canonicalUuid } from '../../validation.js';
import { restCall } from './catalog.js';

const idParams = z.object({ id: canonicalUuid });

/** One token as its owner sees it in the list: never the token or its hash. */
export interface PersonalAccessTokenView {
  readonly id: string;
  readonly name: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly createdAt: string;
}

interface ListRow {
  readonly id: string;
  readonly name: string;
  readonly expires_at: Date;
  readonly last_used_at: Date | null;
  readonly revoked_at: Date | null;
  readonly created_at: Date;
}

const iso = (value: Date): string => new Date(value).toISOString();
const isoOrNull = (value: Date | null): string | null => (value === null ? null : iso(value));

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
    const { rows } = await sql<ListRow>`
      SELECT id, name, expires_at, last_used_at, revoked_at, created_at FROM personal_access_tokens
       WHERE user_id = ${principal.userId} ORDER BY created_at DESC, id DESC`.execute(services.db);
    const views = rows.map((r): PersonalAccessTokenView => ({
      id: r.id,
      name: r.name,
      expiresAt: iso(r.expires_at),
      lastUsedAt: isoOrNull(r.last_used_at),
      revokedAt: isoOrNull(r.revoked_at),
      createdAt: iso(r.created_at),
    }));
    return reply.send(views);
  });

  app.delete('/personal_access_tokens/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const written = await writes.revoke(restCall(request), id);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return reply.status(204).send();
  });
}
