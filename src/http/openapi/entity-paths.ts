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
    jsonResponse(description, view, status === 'none' ? undefined : status === 'Location' ? { ETag: header('ETag'), Location: header('Location') } : { ETag: header('ETag') });

  const collection: PathItem = {
    get: {
      tags,
      operationId: operationId('list', def.plural),
      summary: `List ${def.plural.replaceAll('_', ' ')}`,
      description: `Filtered, sorted, paged list.${note('read')}`,
      ...(def.listQuery !== false && { parameters: [param('filter'), param('sort'), param('range')] }),
      responses: {
        '200': jsonResponse('The page of entities.', { type: 'array', items: view }, def.listQuery === false ? undefined : { 'Content-Range': header('ContentRange') }),
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
        description: `One of: ${def.actions.map((a) => `\`${a}\``).join(', ')}. An action the current state does not allow is a 409 naming the allowed ones.${note('write')}`,
        parameters: [param('ifMatch'), param('idempotencyKey')],
        ...(def.actionBody && { requestBody: jsonBody(def.actionBody, false) }),
        responses: { '200': entity(`The ${def.label} after the action.`), '204': { description: 'The action deleted it.' }, ...problems(400, 401, 403, 404, 409, 412, 422, 503) },
      },
    };
  }
  return paths;
}
