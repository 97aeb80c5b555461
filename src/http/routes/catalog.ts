import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { levelIncludes, type PermissionResource } from '../../model/permissions.js';
import type { Principal } from '../../model/principal.js';
import { readableRows } from '../../read/entity-access.js';
import { callerLevel } from '../../edge/entity-authority.js';
import { contentRange, parseListQuery, type ListSpec } from '../../read/list-query.js';
import { declaredReader, type catalogReader, type CatalogView } from '../../read/catalog.js';
import { listSpecOf } from '../../read/list-specs/common.js';
import type { EntityDeclaration } from '../../model/entity.js';
import { notFound, validationError } from '../../errors.js';
import { atInput, revisionInput } from '../../read/as-of.js';
import { entityAsOf, entityRevisionDiff } from '../../edge/history.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition, parseIfMatch } from '../../edge/headers.js';
import type { WriteCall, WriteOperations, Written } from '../../edge/writes/write.js';
import type { FollowingRead } from '../../projections/follow-ups.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { entityPermissions } from '../../edge/entity-permissions.js';
import { accessWrites, GRANTS_PROJECTION } from '../../edge/writes/access.js';
import { confirmedWrite } from '../../edge/recalled-writes.js';

/** Ids are canonical lower case everywhere (stream ids are built from them). */
export const uuidParam = canonicalUuid;

/** What the shared read routes need of an entity. */
export interface EntitySurface {
  readonly plural: string;
  readonly resource: PermissionResource;
  readonly projection: string;
  readonly listSpec: ListSpec;
  readonly reader: ReturnType<typeof catalogReader>;
  readonly present?: (view: CatalogView) => CatalogView;
  /** A declared entity answers as of a revision, position or time, and the diff of two revisions. */
  readonly entity?: EntityDeclaration;
}

/** The read surface of a declared entity: its path, permission resource, projection and reader from the declaration. */
export function declaredSurface(entity: EntityDeclaration): EntitySurface {
  const listSpec = listSpecOf(entity);
  return {
    plural: entity.plural,
    // Every catalog entity's kind is a permission resource (model/permissions.ts).
    resource: entity.kind as PermissionResource,
    projection: entity.table,
    listSpec,
    reader: declaredReader(entity),
    entity,
  };
}

/** Whether the caller may read the entity `id` (only private-when-owned kinds ask the database). */
async function mayRead(services: Services, principal: Principal, def: EntitySurface, id: string): Promise<boolean> {
  if (readableRows(principal, def.resource, def.listSpec.table) === undefined) return true;
  return levelIncludes((await callerLevel(services, principal, { resource: def.resource, table: def.projection }, id)) ?? null, 'read');
}

/** GET list (filter/sort/range, Content-Range) and GET one, behind `{resource}:read` and the entity's own rule. */
export function registerEntityReads(app: FastifyInstance, services: Services, def: EntitySurface): void {
  const present = def.present ?? ((view: CatalogView) => view);
  const label = def.resource.replaceAll('_', ' ');
  app.get(`/${def.plural}`, async (request, reply) => {
    const principal = authorize(request, `${def.resource}:read`);
    const query = parseListQuery(def.listSpec, request.query as Record<string, unknown>, {
      maxPageSize: services.config.MAX_PAGE_SIZE,
      defaultPageSize: 100,
    });
    await awaitMinPosition(request, services, [def.projection]);
    // Owned secrets and integrations are their team's (docs/contract.md §6): filtered in the statement.
    const { rows, total } = await def.reader.list(
      services.db,
      def.listSpec,
      query,
      readableRows(principal, def.resource, def.listSpec.table),
    );
    return reply.header('Content-Range', contentRange(def.listSpec, query, rows.length, total)).send(rows.map(present));
  });

  /** The entity as the read model shows it now, when the caller may read it (404 otherwise). */
  const readable = async (request: FastifyRequest): Promise<{ principal: Principal; view: CatalogView }> => {
    const principal = authorize(request, `${def.resource}:read`);
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, [def.projection]);
    const view = await def.reader.find(services.db, id);
    // One the caller may not read is as absent as one that does not exist.
    if (!view || !(await mayRead(services, principal, def, id))) throw notFound(`${label} not found`);
    return { principal, view };
  };
  app.get(`/${def.plural}/:id`, async (request, reply) => {
    const query = parseInput(asOfQuery, request.query, 'query');
    const { principal, view } = await readable(request);
    if (query.at === undefined && query.revision === undefined) return reply.header('ETag', `"${view.revision}"`).send(present(view));
    if (!def.entity) throw validationError('invalid query: at', [{ field: 'at', message: `${label}s are not read as of a point` }]);
    // An earlier state is nothing to send If-Match with: no ETag.
    const point = query.revision !== undefined ? { revision: query.revision } : (query.at ?? { revision: view.revision });
    return present(await entityAsOf(services, principal, def.entity, view.id, point));
  });

  if (def.entity) {
    const entity = def.entity;
    app.get(`/${def.plural}/:id/diff`, async (request) => {
      const { from, to } = parseInput(diffQuery, request.query, 'query');
      const { principal, view } = await readable(request);
      return entityRevisionDiff(services, principal, entity, view.id, from, to);
    });
  }
}

const asOfQuery = z
  .object({ at: atInput.optional(), revision: revisionInput.optional() })
  .refine((query) => query.at === undefined || query.revision === undefined, { message: 'give at or revision, not both', path: ['at'] });

const diffQuery = z.object({ from: revisionInput, to: revisionInput });

/**
 * How a write's answer may read its entity in the batch that projects the write instead of after it
 * (src/projections/follow-ups.ts): the lookup by id as a statement, and its row in the answer's shape.
 */
export interface WrittenReadBack<V> {
  readonly statement: (id: string) => FollowingRead;
  readonly view: (row: Record<string, unknown>) => V;
}

/**
 * Answers a write: its X-Position, then the entity as the read model shows it (ETag), or 204 once
 * deleted. The entity is the row the projecting batch read back for it (`written.rows`) or, when no
 * batch did, `find`'s.
 */
export async function sendWritten<V extends { readonly revision: number }>(
  reply: FastifyReply,
  written: Written,
  find: (id: string) => Promise<V | undefined>,
  notFoundMessage: string,
  status = 200,
  readBack?: WrittenReadBack<V>,
): Promise<FastifyReply> {
  if (written.position !== undefined) void reply.header('X-Position', String(written.position));
  if (written.deleted) return reply.status(204).send();
  const row = written.rows?.[0];
  const view = readBack && written.rows ? row && readBack.view(row) : await find(written.id);
  if (!view) throw notFound(notFoundMessage);
  return reply.status(status).header('ETag', `"${view.revision}"`).send(view);
}

/** The write call of a REST request: its caller and its If-Match. */
export const restCall = (request: FastifyRequest): WriteCall => ({ request, expectedRevision: parseIfMatch(request) });

const actionParams = z.object({ id: uuidParam, action: z.string() });
const idParams = z.object({ id: uuidParam });
const grantParams = z.object({ id: uuidParam, subjectType: z.string(), subjectId: z.string() });

/**
 * The write routes docs/contract.md §3 gives an entity, on its write operations (src/edge/writes):
 * POST (201 + Location), PATCH (If-Match), POST `/{id}/actions/{action}` and DELETE, each answering
 * with the entity as the read model then shows it.
 *
 * With `authenticate`, creates, updates and deletes may start from a recalled caller
 * (src/edge/recalled-writes.ts): the write's append checks the session, and the caller is confirmed
 * before the answer is read. Actions never do: some write outside the event log (a webhook's redrive).
 */
export function registerWriteRoutes<V extends { readonly revision: number }>(
  app: FastifyInstance,
  plural: string,
  writes: WriteOperations,
  find: (id: string) => Promise<V | undefined>,
  noun: string,
  readBack?: WrittenReadBack<V>,
  authenticate?: (header: string) => Promise<Principal>,
): void {
  const missing = `${noun} not found`;
  const config = { recallsWriter: authenticate !== undefined };
  const confirmed = <T>(request: FastifyRequest, run: () => Promise<T>): Promise<T> =>
    authenticate ? confirmedWrite(request, authenticate, run) : run();
  // A write answered with its entity offers the lookup to the batch projecting it (WrittenReadBack).
  const answeredCall = (request: FastifyRequest): WriteCall =>
    readBack
      ? { ...restCall(request), readBack: (id) => ({ ...readBack.statement(id), projections: writes.projections }) }
      : restCall(request);
  const send = (reply: FastifyReply, written: Written, status?: number) => sendWritten(reply, written, find, missing, status, readBack);
  app.post(`/${plural}`, { config }, async (request, reply) => {
    const written = await confirmed(request, () => writes.create(answeredCall(request), request.body));
    void reply.header('Location', `/api/${plural}/${written.id}`);
    return send(reply, written, 201);
  });

  // PUT is the upstream project's spelling of the same partial update (docs/contract.md §12): its
  // clients send PUT with the fields they change, so both methods answer alike.
  app.route({
    method: ['PATCH', 'PUT'],
    url: `/${plural}/:id`,
    config,
    handler: async (request, reply) => {
      const { id } = parseInput(idParams, request.params, 'path');
      return send(reply, await confirmed(request, () => writes.update(answeredCall(request), id, request.body)));
    },
  });

  app.post(`/${plural}/:id/actions/:action`, async (request, reply) => {
    const { id, action } = parseInput(actionParams, request.params, 'path');
    return send(reply, await writes.act(answeredCall(request), id, action, request.body));
  });

  const remove = writes.remove;
  if (remove) {
    app.delete(`/${plural}/:id`, { config }, async (request, reply) => {
      const { id } = parseInput(idParams, request.params, 'path');
      return send(reply, await confirmed(request, () => remove(restCall(request), id)));
    });
  }
}

/**
 * The REST surface docs/contract.md §3 gives every catalog entity: list (filter/sort/range, Content-Range), get,
 * create, patch (If-Match), actions, delete — every write answering with the entity as the read model shows it.
 */
export function catalogRoutes(app: FastifyInstance, services: Services, surface: EntitySurface, writes: WriteOperations): void {
  registerEntityReads(app, services, surface);
  const present = surface.present ?? ((view: CatalogView) => view);
  const find = async (id: string) => {
    const view = await surface.reader.find(services.db, id);
    return view && present(view);
  };
  const readBack: WrittenReadBack<CatalogView> = {
    statement: (id) => surface.reader.findStatement(services.db, id),
    view: (row) => present(surface.reader.view(row)),
  };
  registerWriteRoutes(app, surface.plural, writes, find, surface.resource.replaceAll('_', ' '), readBack, (header) =>
    services.authenticator.authenticate(header, services.now()),
  );
  registerAccessRoutes(app, services, surface);
}

/**
 * docs/contract.md §6, "What may I do here" and grants per entity: `GET …/{id}/permissions` (the
 * caller's levels, the actions that would work now, the owner and the grants), `PUT …/{id}/grants`
 * (give a user or team a level) and `DELETE …/{id}/grants/{subjectType}/{subjectId}`, both for
 * those with `admin` on the entity, answering with the permissions view.
 */
function registerAccessRoutes(app: FastifyInstance, services: Services, surface: EntitySurface): void {
  const access = accessWrites(services);
  const view = (request: FastifyRequest, id: string) => entityPermissions(services, authorize(request), surface.resource, id);
  app.get(`/${surface.plural}/:id/permissions`, async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, [surface.projection, GRANTS_PROJECTION]);
    return view(request, id);
  });
  app.put(`/${surface.plural}/:id/grants`, async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const written = await access.grant(restCall(request), surface.resource, id, request.body);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return view(request, id);
  });
  app.delete(`/${surface.plural}/:id/grants/:subjectType/:subjectId`, async (request, reply) => {
    const { id, ...subject } = parseInput(grantParams, request.params, 'path');
    const written = await access.revoke(restCall(request), surface.resource, id, subject);
    if (written.position !== undefined) void reply.header('X-Position', String(written.position));
    return view(request, id);
  });
}
