import type { FastifyInstance } from 'fastify';
import { templateAggregate } from '../../commands/template.js';
import { createBodySchema, patchBodySchema } from '../../model/entity.js';
import { templateEntity } from '../../model/template.js';
import { TEMPLATE_LINKS } from '../../projections/templates.js';
import { catalogReader } from '../../read/catalog.js';
import { templateListSpec } from '../../read/list-specs/templates.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { catalogRoutes } from './catalog.js';

/** POST /api/templates body, from the declaration. Unknown fields are refused, never ignored. */
export const createTemplateBody = createBodySchema(templateEntity);

/** PATCH /api/templates/{id} body: any subset; `template` is accepted only to say it is immutable. */
export const patchTemplateBody = patchBodySchema(templateEntity);

/**
 * The templates REST surface: the catalog kit's list, get, create, patch (If-Match), enable/disable and
 * delete, with the template's own request bodies.
 */
export function templateRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    plural: 'templates',
    resource: 'template',
    projection: 'templates',
    aggregate: templateAggregate,
    listSpec: templateListSpec,
    reader: catalogReader('templates', TEMPLATE_LINKS),
    parseCreate: (body) => parseInput(createTemplateBody, body, 'body'),
    parsePatch: (body) => parseInput(patchTemplateBody, body, 'body'),
  });
}
