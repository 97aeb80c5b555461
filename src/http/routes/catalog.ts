import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { PermissionResource } from '../../model/permissions.js';
import type { CatalogCommand, CatalogState, EntityStatus } from '../../commands/catalog-entity.js';
import type { Aggregate } from '../../commands/decider.js';
import { executeCommand, loadAggregate, type PreparedCommand } from '../../commands/handler.js';
import { contentRange, parseListQuery, type ListSpec } from '../../read/list-query.js';
import { declaredReader, type catalogReader, type CatalogView } from '../../read/catalog.js';
import type { EntityDeclaration } from '../../model/entity.js';
import { nameReferrers } from '../../read/referrers.js';
import { notFound } from '../../errors.js';
import type { DomainEvent } from '../../events/codec.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { awaitMinPosition, parseIfMatch } from '../../edge/headers.js';
import { canonicalUuid, parseInput } from '../../validation.js';

/** Ids are canonical lower case everywhere (stream ids are built from them). */
export const uuidParam = canonicalUuid;

/** Everything the generic REST surface of a catalog entity needs. */
export interface CatalogRouteDefinition<F extends Record<string, unknown>> {
  /** URL segment and Content-Range unit, e.g. `integrations`. */
  readonly plural: string;
  readonly resource: PermissionResource;
  /** The projection (and table) that shows the entity. */
  readonly projection: string;
  readonly aggregate: Aggregate<CatalogCommand<F>, DomainEvent, CatalogState<F>>;
  readonly listSpec: ListSpec;
  readonly reader: ReturnType<typeof catalogReader>;
  /**
   * Parses a POST body into the entity's fields and initial status (400 naming each bad field).
   * May be async, to check facts such as the kind of a referenced integration (422).
   */
  readonly parseCreate: (body: unknown) => (F & { status: EntityStatus }) | Promise<F & { status: EntityStatus }>;
  /** Parses a PATCH body into changes; gets the current fields to keep write-only secrets. May be async. */
  readonly parsePatch: (body: unknown, current: F) => Partial<F> | Promise<Partial<F>>;
  /** Masks write-only values in a view (the read model already stores them masked). */
  readonly present?: (view: CatalogView) => CatalogView;
}

const actionParams = z.object({ id: uuidParam, action: z.enum(['enable', 'disable'], { message: 'unknown action; allowed: enable, disable' }) });
const idParams = z.object({ id: uuidParam });

/** What the shared read routes and the command runner need of an entity. */
export interface EntitySurface<C, S> {
  readonly plural: string;
  readonly resource: PermissionResource;
  readonly projection: string;
  readonly aggregate: Aggregate<C, DomainEvent, S>;
  readonly listSpec: ListSpec;
  readonly reader: ReturnType<typeof catalogReader>;
  readonly present?: (view: CatalogView) => CatalogView;
}

/** The surface of a declared entity: its path, permission resource, projection and reader from the declaration. */
export function declaredSurface<C, S>(entity: EntityDeclaration, aggregate: Aggregate<C, DomainEvent, S>, listSpec: ListSpec): EntitySurface<C, S> {
  return {
    plural: entity.plural,
    // Every catalog entity's kind is a permission resource (model/permissions.ts).
    resource: entity.kind as PermissionResource,
    projection: entity.table,
    aggregate,
    listSpec,
    reader: declaredReader(entity),
  };
}

/** GET list (filter/sort/range, Content-Range) and GET one, behind `{resource}:read`. */
export function registerEntityReads<C, S>(app: FastifyInstance, services: Services, def: EntitySurface<C, S>): void {
  const present = def.present ?? ((view: CatalogView) => view);
  const label = def.resource.replaceAll('_', ' ');
  app.get(`/${def.plural}`, async (request, reply) => {
    authorize(request, `${def.resource}:read`);
    const query = parseListQuery(def.listSpec, request.query as Record<string, unknown>, { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 });
    await awaitMinPosition(request, services, [def.projection]);
    const { rows, total } = await def.reader.list(services.db, def.listSpec, query);
    return reply.header('Content-Range', contentRange(def.listSpec, query, rows.length, total)).send(rows.map(present));
  });

  app.get(`/${def.plural}/:id`, async (request, reply) => {
    authorize(request, `${def.resource}:read`);
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, [def.projection]);
    const view = await def.reader.find(services.db, id);
    if (!view) throw notFound(`${label} not found`);
    return reply.header('ETag', `"${view.revision}"`).send(present(view));
  });
}

/**
 * Runs a command and answers with the entity as the read model then shows it (read-your-writes),
 * or 204 when the command deleted it. Referrers of a refused delete are named.
 */
export async function answerCommand<C, S>(
  request: FastifyRequest,
  reply: FastifyReply,
  services: Services,
  def: EntitySurface<C, S>,
  id: string,
  /** The command, or one prepared per attempt from facts of other streams (see executeCommand). */
  command: C | PreparedCommand<C>,
  status = 200,
): Promise<FastifyReply> {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  const result = await executeCommand(deps, def.aggregate, id, command, { ...commandContext(request, services.now()), expectedRevision: parseIfMatch(request) }).catch(
    async (error: unknown) => {
      throw await nameReferrers(services.db, error);
    },
  );
  if (result.position !== undefined) {
    await services.waitFor([def.projection], result.position);
    void reply.header('X-Position', String(result.position));
  }
  if (def.aggregate.isDeleted(result.state)) return reply.status(204).send();
  const view = await def.reader.find(services.db, id);
  if (!view) throw notFound(`${def.resource.replaceAll('_', ' ')} not found`);
  return reply.status(status).header('ETag', `"${view.revision}"`).send((def.present ?? ((v: CatalogView) => v))(view));
}

/** An entity state the write routes can read current fields from (both kits' states are such). */
type WithFields<F> = { readonly status: 'absent' } | { readonly status: 'active' | 'deleted'; readonly fields: F };

/** `Created`: what a POST body parses into; `F`: the fields an entity keeps (PATCH works on those). */
export interface EntityWrites<Created, F, C> {
  readonly parseCreate: (body: unknown) => Created | Promise<Created>;
  readonly parsePatch: (body: unknown, current: F) => Partial<F> | Promise<Partial<F>>;
  /** The command that creates the entity from its parsed body. */
  readonly create: (created: Created, id: string) => C;
  readonly update: (changes: Partial<F>) => C;
}

/** POST (201 + Location) and PATCH (current fields for write-only values; If-Match), behind `{resource}:write`. */
export function registerEntityWrites<Created, F, C, S extends WithFields<F>>(
  app: FastifyInstance,
  services: Services,
  def: EntitySurface<C, S>,
  writes: EntityWrites<Created, F, C>,
): void {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  app.post(`/${def.plural}`, async (request, reply) => {
    authorize(request, `${def.resource}:write`);
    const fields = await writes.parseCreate(request.body === undefined ? {} : request.body);
    const id = services.newId();
    void reply.header('Location', `/api/${def.plural}/${id}`);
    return answerCommand(request, reply, services, def, id, writes.create(fields, id), 201);
  });

  app.patch(`/${def.plural}/:id`, async (request, reply) => {
    authorize(request, `${def.resource}:write`);
    const { id } = parseInput(idParams, request.params, 'path');
    const { state } = await loadAggregate(deps, def.aggregate, id);
    if (state.status !== 'active') throw notFound(`${def.resource.replaceAll('_', ' ')} not found`);
    const changes = await writes.parsePatch(request.body === undefined ? {} : request.body, state.fields);
    return answerCommand(request, reply, services, def, id, writes.update(changes));
  });
}

/**
 * The REST surface docs/contract.md §3 gives every catalog entity: list (filter/sort/range, Content-Range), get,
 * create, patch (If-Match), enable/disable, delete — behind `{resource}:read` / `{resource}:write`,
 * every write answering with the entity as the read model shows it.
 */
export function catalogRoutes<F extends Record<string, unknown>>(app: FastifyInstance, services: Services, def: CatalogRouteDefinition<F>): void {
  const surface: EntitySurface<CatalogCommand<F>, CatalogState<F>> = def;
  registerEntityReads(app, services, surface);
  registerEntityWrites(app, services, surface, {
    parseCreate: def.parseCreate,
    parsePatch: def.parsePatch,
    create: (data, id): CatalogCommand<F> => ({ type: 'Create', data: { ...data, id } }),
    update: (changes): CatalogCommand<F> => ({ type: 'Update', data: { changes } }),
  });

  app.post(`/${def.plural}/:id/actions/:action`, async (request, reply) => {
    authorize(request, `${def.resource}:write`);
    const { id, action } = parseInput(actionParams, request.params, 'path');
    return answerCommand(request, reply, services, surface, id, action === 'enable' ? { type: 'Enable' } : { type: 'Disable' });
  });

  app.delete(`/${def.plural}/:id`, async (request, reply) => {
    authorize(request, `${def.resource}:write`);
    const { id } = parseInput(idParams, request.params, 'path');
    return answerCommand(request, reply, services, surface, id, { type: 'Delete' });
  });
}
