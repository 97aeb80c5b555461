import type { OpenAPIV3_1 } from 'openapi-types';
import { actionParam, header, jsonBody, jsonResponse, param, problems, ref, type PathItem, type Paths } from './components.js';

type Schema = OpenAPIV3_1.SchemaObject;

/** What the document needs to describe one entity's REST surface (docs/contract.md §3). */
export interface EntityDoc {
  /** URL segment, e.g. `integrations`. */
  readonly plural: string;
  /** Singular, for summaries (`integration`). */
  readonly label: string;
  /** Tag grouping its operations in the docs. */
  readonly tag: string;
  /** POST body, from the route's zod schema. */
  readonly create?: Schema;
  /** PATCH body, from the route's zod schema. */
  readonly patch?: Schema;
  /** `POST /{id}/actions/{action}` values; none means the route does not exist. */
  readonly actions?: readonly string[];
  /** Optional body of the action route (e.g. `succeed` outputs, `fail` error). */
  readonly actionBody?: Schema;
  /** Whether `DELETE /{id}` exists. */
  readonly deletable?: boolean;
  /** Whether the list takes `filter`/`sort`/`range` and answers `Content-Range`. */
  readonly listQuery?: boolean;
  /** Who may read and write, in Markdown (appended to each operation's description as "Needs …"). */
  readonly permissions?: { readonly read: string; readonly write: string };
  /** Response schema of one entity; the shared `Entity` by default. */
  readonly view?: Schema | OpenAPIV3_1.ReferenceObject;
  /** Whether it has the per-entity permissions routes (`/{id}/permissions`, `/{id}/grants`). */
  readonly access?: boolean;
  /** Whether it is read as of a point (`?at=`, `?revision=`) and has `/{id}/diff`. */
  readonly history?: boolean;
}

const revisionParam = (name: string, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'query',
  description,
  schema: { type: 'integer', minimum: 1 },
});

const asOfParams: OpenAPIV3_1.ParameterObject[] = [
  {
    name: 'at',
    in: 'query',
    description:
      'Read it as it was at this log position (as `X-Position` gives it) or ISO-8601 time with a zone (`2026-11-20T09:00:00Z`): ' +
      'its events folded up to there. 404 when it did not exist then; no ETag.',
    schema: { type: 'string' },
  },
  revisionParam('revision', 'Read it as it was at this revision (its first is 1); not with `at`. 404 for a revision it never had.'),
];

/** The permissions view `GET …/{id}/permissions` and the grant routes answer (docs/contract.md §6). */
const permissionsView: Schema = {
  type: 'object',
  required: ['entityType', 'entityId', 'myPermissions', 'availableActions', 'owner', 'myTeamRole', 'grants'],
  properties: {
    entityType: { type: 'string' },
    entityId: { type: 'string', format: 'uuid' },
    myPermissions: {
      type: 'array',
      items: { type: 'string', enum: ['read', 'write', 'admin'] },
      description: 'Your levels on it, weakest first.',
    },
    availableActions: {
      type: 'array',
      items: { type: 'string' },
      description: 'What you may do with it now: `update`, `delete`, `enable`/`disable`, lifecycle actions, `changeOwner`, `grant`.',
    },
    owner: { type: ['object', 'null'], properties: { id: { type: 'string', format: 'uuid' }, name: { type: ['string', 'null'] } } },
    myTeamRole: { type: ['string', 'null'], enum: ['member', 'lead', null] },
    grants: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          subjectType: { type: 'string', enum: ['user', 'team'] },
          subjectId: { type: 'string', format: 'uuid' },
          subjectName: { type: ['string', 'null'] },
          level: { type: 'string', enum: ['read', 'write', 'admin'] },
          grantedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};

const grantRequest: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['subjectType', 'subjectId', 'level'],
  properties: {
    subjectType: { type: 'string', enum: ['user', 'team'] },
    subjectId: { type: 'string', format: 'uuid' },
    level: { type: 'string', enum: ['read', 'write', 'admin'] },
  },
};

/** `GET /{id}/permissions`, `PUT /{id}/grants`, `DELETE /{id}/grants/{subjectType}/{subjectId}`. */
function accessPaths(def: EntityDoc, base: string, tags: string[]): Paths {
  const answer = jsonResponse('The permissions view: your levels and actions, the owner and the grants.', permissionsView);
  return {
    [`${base}/{id}/permissions`]: {
      parameters: [param('id')],
      get: {
        tags,
        operationId: operationId('permissions_of', def.plural),
        summary: `What you may do with a ${def.label}`,
        description:
          'Your levels on it and the actions that would work now (show only the buttons that work), its owner and its grants. 404 when ' +
          'it does not exist or you may not read it.',
        responses: { '200': answer, ...problems(400, 401, 404, 503) },
      },
    },
    [`${base}/{id}/grants`]: {
      parameters: [param('id')],
      put: {
        tags,
        operationId: operationId('grant_on', def.plural),
        summary: `Give a user or team a level on a ${def.label}`,
        description:
          "Replaces the level the subject had. Needs `admin` on it (the kind's admin, an admin grant, or leading the team that owns it).",
        requestBody: jsonBody(grantRequest),
        responses: { '200': answer, ...problems(400, 401, 403, 404, 422, 503) },
      },
    },
    [`${base}/{id}/grants/{subjectType}/{subjectId}`]: {
      parameters: [
        param('id'),
        { name: 'subjectType', in: 'path', required: true, schema: { type: 'string', enum: ['user', 'team'] } },
        { name: 'subjectId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      delete: {
        tags,
        operationId: operationId('revoke_on', def.plural),
        summary: `Take a user's or team's grant on a ${def.label} away`,
        description: 'Needs `admin` on it. 404 when the subject holds no grant.',
        responses: { '200': answer, ...problems(400, 401, 403, 404, 503) },
      },
    },
  };
}

const operationId = (verb: string, plural: string): string => `${verb}_${plural}`;

/**
 * The paths of one entity: list and create on `/api/{plural}`, get/patch/delete on `/{id}`, and the
 * action route — each with the docs/contract.md §3 headers (Content-Range, ETag, Location, If-Match) and the
 * problem responses it can answer.
 */
export function entityPaths(def: EntityDoc): Paths {
  const view = def.view ?? ref('Entity');
  const base = `/api/${def.plural}`;
  const tags = [def.tag];
  const note = (kind: 'read' | 'write'): string => (def.permissions ? ` Needs ${def.permissions[kind]}.` : '');
  const entity = (description: string, status: 'ETag' | 'Location' | 'none' = 'ETag'): OpenAPIV3_1.ResponseObject =>
    jsonResponse(
      description,
      view,
      status === 'none'
        ? undefined
        : status === 'Location'
          ? { ETag: header('ETag'), Location: header('Location') }
          : { ETag: header('ETag') },
    );

  const collection: PathItem = {
    get: {
      tags,
      operationId: operationId('list', def.plural),
      summary: `List ${def.plural.replaceAll('_', ' ')}`,
      description: `Filtered, sorted, paged list.${note('read')}`,
      ...(def.listQuery !== false && { parameters: [param('filter'), param('sort'), param('range')] }),
      responses: {
        '200': jsonResponse(
          'The page of entities.',
          { type: 'array', items: view },
          def.listQuery === false ? undefined : { 'Content-Range': header('ContentRange') },
        ),
        ...problems(400, 401, 403, 503),
      },
    },
  };
  if (def.create) {
    collection.post = {
      tags,
      operationId: operationId('create', def.plural),
      summary: `Create a ${def.label}`,
      description: `Creates it and answers with it as the read model shows it (read-your-writes).${note('write')}`,
      parameters: [param('idempotencyKey')],
      requestBody: jsonBody(def.create),
      responses: { '201': entity(`The created ${def.label}.`, 'Location'), ...problems(400, 401, 403, 409, 422, 503) },
    };
  }
  const paths: Paths = { [base]: collection };

  const item: PathItem = {
    parameters: [param('id')],
    get: {
      tags,
      operationId: operationId('get', def.plural),
      summary: `Get a ${def.label}`,
      ...(def.permissions && { description: note('read').trim() }),
      ...(def.history && { parameters: asOfParams }),
      responses: { '200': entity(`The ${def.label}.`), ...problems(400, 401, 403, 404, 503) },
    },
  };
  if (def.patch) {
    item.patch = {
      tags,
      operationId: operationId('update', def.plural),
      summary: `Update a ${def.label}`,
      description: `Partial update: only the fields sent change.${note('write')}`,
      parameters: [param('ifMatch'), param('idempotencyKey')],
      requestBody: jsonBody(def.patch),
      responses: { '200': entity(`The updated ${def.label}.`), ...problems(400, 401, 403, 404, 409, 412, 422, 503) },
    };
    // The upstream project's clients update with PUT: the same partial update (docs/contract.md §12).
    item.put = {
      ...item.patch,
      operationId: operationId('put', def.plural),
      summary: `Update a ${def.label} (PUT, as PATCH)`,
      description: `The same partial update as PATCH, under the method the upstream project's clients use.${note('write')}`,
    };
  }
  if (def.deletable !== false) {
    item.delete = {
      tags,
      operationId: operationId('delete', def.plural),
      summary: `Delete a ${def.label}`,
      ...(def.permissions && { description: note('write').trim() }),
      parameters: [param('ifMatch'), param('idempotencyKey')],
      responses: { '204': { description: 'Deleted.' }, ...problems(401, 403, 404, 409, 412, 503) },
    };
  }
  paths[`${base}/{id}`] = item;

  if (def.actions && def.actions.length > 0) {
    paths[`${base}/{id}/actions/{action}`] = {
      parameters: [param('id'), actionParam(def.actions)],
      post: {
        tags,
        operationId: operationId('act_on', def.plural),
        summary: `Take an action on a ${def.label}`,
        description:
          `One of: ${def.actions.map((a) => `\`${a}\``).join(', ')}. ` +
          `An action the current state does not allow is a 409 naming the allowed ones.${note('write')}`,
        parameters: [param('ifMatch'), param('idempotencyKey')],
        ...(def.actionBody && { requestBody: jsonBody(def.actionBody, false) }),
        responses: {
          '200': entity(`The ${def.label} after the action.`),
          '204': { description: 'The action deleted it.' },
          ...problems(400, 401, 403, 404, 409, 412, 422, 503),
        },
      },
    };
  }
  if (def.history) {
    paths[`${base}/{id}/diff`] = {
      parameters: [param('id')],
      get: {
        tags,
        operationId: operationId('diff', def.plural),
        summary: `Compare two revisions of a ${def.label}`,
        description:
          `Both revisions in the view's shape and the fields that differ (\`[{field, before, after}]\`, by field).` + note('read'),
        parameters: [revisionParam('from', 'The earlier revision.'), revisionParam('to', 'The later revision.')].map((p) => ({
          ...p,
          required: true,
        })),
        responses: {
          '200': jsonResponse('Both revisions and what differs.', {
            type: 'object',
            required: ['from', 'to', 'changes'],
            properties: {
              from: view,
              to: view,
              changes: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['field', 'before', 'after'],
                  properties: { field: { type: 'string' }, before: {}, after: {} },
                },
              },
            },
          }),
          ...problems(400, 401, 403, 404, 503),
        },
      },
    };
  }
  return def.access ? { ...paths, ...accessPaths(def, base, tags) } : paths;
}
