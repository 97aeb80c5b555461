import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { executeCommand } from '../../commands/handler.js';
import { templateAggregate, type TemplateCommand } from '../../commands/template.js';
import { applyFilters, applyPage, contentRange, parseListQuery } from '../../read/list-query.js';
import { templateListSpec } from '../../read/list-specs/templates.js';
import { nameReferrers } from '../../read/referrers.js';
import { findTemplate, templateViewColumns, toTemplateView, type TemplateView } from '../../read/templates.js';
import { notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { awaitMinPosition, parseIfMatch } from '../../edge/headers.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';

const PROJECTIONS = ['templates'] as const;

// Ids are canonical lower case everywhere (stream ids are built from them).
const idList = z
  .array(uuid)
  .max(100, 'at most 100 ids')
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id');
const text = (max: number) => z.string().max(max, `at most ${max} characters`);
const labels = z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels');

const mutableFields = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  description: text(10_000),
  labels,
  abstract: z.boolean(),
  cloudResourceTypes: z.array(z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters')).max(100, 'at most 100 entries'),
  configuration: z.record(z.string(), z.unknown()),
  executorIds: idList,
  parentIds: idList,
};
const slug = z.string().regex(/^[a-z0-9_]+$/, 'must match [a-z0-9_]+').max(100, 'at most 100 characters');

/** POST /api/templates body. Unknown fields are refused, never ignored. */
export const createTemplateBody = z.strictObject({
  ...mutableFields,
  template: slug,
  description: mutableFields.description.default(''),
  labels: mutableFields.labels.default([]),
  abstract: mutableFields.abstract.default(false),
  cloudResourceTypes: mutableFields.cloudResourceTypes.default([]),
  configuration: mutableFields.configuration.default({}),
  executorIds: mutableFields.executorIds.default([]),
  parentIds: mutableFields.parentIds.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});

/** PATCH /api/templates/{id} body: any subset; `template` is accepted only to say it is immutable. */
export const patchTemplateBody = z.strictObject({ ...mutableFields, template: slug }).partial();

const idParams = z.object({ id: uuid });
const actionParams = z.object({ id: uuid, action: z.enum(['enable', 'disable'], { message: 'unknown action; allowed: enable, disable' }) });

export function templateRoutes(app: FastifyInstance, services: Services): void {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };

  /** Runs a command, waits until the read model shows it, and answers with the projected template. */
  async function run(request: FastifyRequest, id: string, command: TemplateCommand, expectedRevision?: bigint): Promise<{ view: TemplateView | undefined; position: bigint | undefined }> {
    const result = await executeCommand(deps, templateAggregate, id, command, { ...commandContext(request, services.now()), expectedRevision });
    if (result.position !== undefined) await services.waitFor(PROJECTIONS, result.position);
    return { view: await findTemplate(services.db, id), position: result.position };
  }

  const send = (reply: FastifyReply, view: TemplateView | undefined, position: bigint | undefined, status = 200): FastifyReply => {
    if (!view) throw notFound('template not found');
    if (position !== undefined) void reply.header('X-Position', String(position));
    return reply.status(status).header('ETag', `"${view.revision}"`).send(view);
  };

  app.get('/templates', async (request, reply) => {
    authorize(request, 'template:read');
    const query = parseListQuery(templateListSpec, request.query as Record<string, unknown>, { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 });
    await awaitMinPosition(request, services, PROJECTIONS);
    const db = services.db;
    const page = applyPage(applyFilters(db.selectFrom('templates').select(templateViewColumns), templateListSpec, query), templateListSpec, query);
    const count = applyFilters(db.selectFrom('templates').select((eb) => eb.fn.countAll<string>().as('total')), templateListSpec, query);
    const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
    const total = Number(counted.total);
    return reply.header('Content-Range', contentRange(templateListSpec, query, rows.length, total)).send(rows.map((r) => toTemplateView(r)));
  });

  app.get('/templates/:id', async (request, reply) => {
    authorize(request, 'template:read');
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, PROJECTIONS);
    return send(reply, await findTemplate(services.db, id), undefined);
  });

  app.post('/templates', async (request, reply) => {
    authorize(request, 'template:write');
    const body = parseInput(createTemplateBody, request.body === undefined ? {} : request.body, 'body');
    const id = services.newId();
    const { view, position } = await run(request, id, { type: 'Create', data: { id, ...body } });
    void reply.header('Location', `/api/templates/${id}`);
    return send(reply, view, position, 201);
  });

  app.patch('/templates/:id', async (request, reply) => {
    authorize(request, 'template:write');
    const { id } = parseInput(idParams, request.params, 'path');
    const expectedRevision = parseIfMatch(request);
    const changes = parseInput(patchTemplateBody, request.body === undefined ? {} : request.body, 'body');
    const { view, position } = await run(request, id, { type: 'Update', data: { changes } }, expectedRevision);
    return send(reply, view, position);
  });

  app.post('/templates/:id/actions/:action', async (request, reply) => {
    authorize(request, 'template:write');
    const { id, action } = parseInput(actionParams, request.params, 'path');
    const expectedRevision = parseIfMatch(request);
    const command: TemplateCommand = action === 'enable' ? { type: 'Enable' } : { type: 'Disable' };
    const { view, position } = await run(request, id, command, expectedRevision);
    return send(reply, view, position);
  });

  app.delete('/templates/:id', async (request, reply) => {
    authorize(request, 'template:write');
    const { id } = parseInput(idParams, request.params, 'path');
    const expectedRevision = parseIfMatch(request);
    const result = await executeCommand(deps, templateAggregate, id, { type: 'Delete' }, { ...commandContext(request, services.now()), expectedRevision }).catch(
      async (error: unknown) => {
        throw await nameReferrers(services.db, error);
      },
    );
    if (result.position !== undefined) {
      await services.waitFor(PROJECTIONS, result.position);
      void reply.header('X-Position', String(result.position));
    }
    return reply.status(204).send();
  });
}
