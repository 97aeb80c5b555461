import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { templateAggregate } from '../../commands/template.js';
import { TEMPLATE_LINKS } from '../../projections/templates.js';
import { catalogReader } from '../../read/catalog.js';
import { templateListSpec } from '../../read/list-specs/templates.js';
import type { Services } from '../../services.js';
import { parseInput, canonicalUuid as uuid } from '../../validation.js';
import { catalogRoutes } from './catalog.js';

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
