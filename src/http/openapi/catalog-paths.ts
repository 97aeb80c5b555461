import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import { LIFECYCLE_ACTIONS } from '../../model/lifecycle.js';
import { DECLARED_ENTITIES } from '../../model/catalog.js';
import { createBodySchema, patchBodySchema, type EntityDeclaration } from '../../model/entity.js';
import { resourceEntity } from '../../model/resource.js';
import { decisionBody, failBody, succeedBody } from '../../edge/writes/catalog.js';
import { header, jsonResponse, param, problems, ref, schemaOf, type Paths } from './components.js';
import { declaredViewSchema } from './entity-schemas.js';
import { entityPaths, type EntityDoc } from './entity-paths.js';

type Schema = OpenAPIV3_1.SchemaObject;

/**
 * Replaces a body's generic property `field` (validated by the schema another field selects, not by
 * the body schema) with `anyOf` the variants, each titled with the selecting value. `anyOf` rather
 * than `oneOf` because several values share one schema (the git providers).
 */
export function withVariants(body: Schema, field: string, variants: Readonly<Record<string, z.ZodType>>, discriminator: string): Schema {
  const properties = body.properties;
  if (!properties?.[field]) return body;
  const anyOf = Object.entries(variants).map(([value, schema]) => ({ ...schemaOf(schema), title: value }));
  const keys = (schema: z.ZodType): string => {
    const shown = schemaOf(schema);
    return shown.enum ? shown.enum.join(', ') : Object.keys(shown.properties ?? {}).join(', ') || '(none)';
  };
  const description = `Depends on \`${discriminator}\` (unknown keys are refused): ${Object.entries(variants)
    .map(([value, schema]) => `${value} → ${keys(schema)}`)
    .join(
      '; ',
    )}. On update it is checked against the stored ${discriminator}; write-only secrets sent back as \`********\` keep their stored value.`;
  return { ...body, properties: { ...properties, [field]: { anyOf, description } } };
}

/** A body's fields with `variants`, each replaced by its `anyOf` (see {@link withVariants}). */
function withDeclaredVariants(body: Schema, entity: EntityDeclaration): Schema {
  return Object.entries(entity.fields).reduce(
    (schema, [name, field]) =>
      'variants' in field && field.variants ? withVariants(schema, name, field.variants.schemas, field.variants.by) : schema,
    body,
  );
}

const enableDisable = ['enable', 'disable'] as const;
const lifecycleActionBody: Schema = {
  description:
    'Only for `succeed` (`outputs`, default `{}`), `fail` (`error`, required) and, on resources, `approve`/`reject` (optional ' +
    '`reason`, kept in the event and shown in the history); other actions take no body.',
  anyOf: [
    { ...schemaOf(succeedBody), title: 'succeed' },
    { ...schemaOf(failBody), title: 'fail' },
    { ...schemaOf(decisionBody), title: 'approve or reject' },
  ],
};
const catalogPermissions = (resource: string) => ({ read: `\`${resource}:read\``, write: `\`${resource}:write\`` });

const tagOf = (entity: EntityDeclaration): string => {
  const words = entity.plural.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** One declared entity's document: request bodies, view and actions from its declaration. */
function declaredDoc(entity: EntityDeclaration, overrides: Partial<EntityDoc> = {}): EntityDoc {
  return {
    plural: entity.plural,
    label: entity.kind.replaceAll('_', ' '),
    tag: tagOf(entity),
    create: withDeclaredVariants(schemaOf(createBodySchema(entity)), entity),
    patch: withDeclaredVariants(schemaOf(patchBodySchema(entity)), entity),
    ...(entity.lifecycle ? { actions: LIFECYCLE_ACTIONS, actionBody: lifecycleActionBody } : { actions: enableDisable }),
    ...(entity.actions && { actions: entity.actions }),
    access: true,
    history: true,
    permissions: catalogPermissions(entity.kind),
    view: declaredViewSchema(entity),
    ...overrides,
  };
}

/** What a declared kind's document says beyond its declaration. */
const DOC_OVERRIDES: Readonly<Record<string, Partial<EntityDoc>>> = {
  resource: {
    create: schemaOf(createBodySchema(resourceEntity), 'Anyone with `resource:read` may request a resource and then owns it.'),
    // Owners (the creator, even with only resource:read) may update, execute, destroy and delete.
    permissions: {
      read: '`resource:read`',
      write:
        '`resource:write` or to be its creator (approvals need `resource:write`; start/succeed/fail a service account or ' +
        '`resource:admin`)',
    },
  },
};

/** Every declared kind's document (docs/contract.md §2), from its declaration. */
export function catalogEntityDocs(): EntityDoc[] {
  return DECLARED_ENTITIES.map((entity) => declaredDoc(entity, DOC_OVERRIDES[entity.kind]));
}

/** `GET /api/approvals`: the requests waiting for the caller's decision (docs/contract.md §6). */
const approvalsPath: Paths = {
  '/api/approvals': {
    get: {
      tags: ['Resources'],
      operationId: 'list_approvals',
      summary: 'Requests waiting for my approval',
      description:
        "Resources in `approval_pending` that you may approve or reject: a request whose template a team owns waits for that team's " +
        'leads (or admin grantees of the template); one whose template no team owns for `resource:write`; holders of `resource:admin` ' +
        "see all. Takes the resources list's filter, sort and range.",
      parameters: [param('filter'), param('sort'), param('range')],
      responses: {
        '200': jsonResponse('The page of requests.', { type: 'array', items: ref('Entity') }, { 'Content-Range': header('ContentRange') }),
        ...problems(400, 401, 403, 503),
      },
    },
  },
};

/** Paths of every catalog entity, and the approvals list. */
export function catalogPaths(): Paths {
  return Object.assign({}, ...catalogEntityDocs().map(entityPaths), approvalsPath) as Paths;
}
