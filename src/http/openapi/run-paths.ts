import type { OpenAPIV3_1 } from 'openapi-types';
import { appendRunLogBody } from '../../edge/writes/run-logs.js';
import { RUN_ACTIONS, RUN_STATUSES } from '../../model/run.js';
import { LOG_PAGE_CHUNKS } from '../../read/run-logs.js';
import { header, jsonBody, jsonResponse, param, problems, schemaOf, type Paths } from './components.js';

type Schema = OpenAPIV3_1.SchemaObject;

const nullable = (type: 'string' | 'object', extra: Schema = {}): Schema => ({ type: [type, 'null'], ...extra });

const runSchema: Schema = {
  type: 'object',
  required: ['id', 'resourceId', 'action', 'status', 'actorId', 'queuedAt', 'startedAt', 'finishedAt', 'error', 'outputs'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The id of the event that queued it.' },
    resourceId: { type: 'string', format: 'uuid' },
    action: { type: 'string', enum: [...RUN_ACTIONS] },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    actorId: nullable('string', { format: 'uuid', description: 'Who executed it.' }),
    queuedAt: { type: 'string', format: 'date-time' },
    startedAt: nullable('string', { format: 'date-time' }),
    finishedAt: nullable('string', { format: 'date-time' }),
    error: nullable('string', { description: 'What `fail` reported.' }),
    outputs: nullable('object', { description: 'What `succeed` reported.' }),
  },
};

const chunkSchema: Schema = {
  type: 'object',
  required: ['runId', 'seq', 'content', 'at'],
  properties: {
    runId: { type: 'string', format: 'uuid' },
    seq: { type: 'integer', description: '1, 2, …: pass the last one read as `after`.' },
    content: { type: 'string', description: 'Secrets masked as `********`.' },
    at: { type: 'string', format: 'date-time' },
  },
};

const appendedSchema: Schema = {
  type: 'object',
  required: ['runId', 'seq', 'acceptedBytes', 'bytes', 'truncated'],
  properties: {
    runId: { type: 'string', format: 'uuid' },
    seq: { type: ['integer', 'null'], description: 'The stored chunk; null when the log was full already (nothing stored).' } as Schema,
    acceptedBytes: { type: 'integer', description: 'Bytes of this chunk stored (fewer than sent when the bound cut it).' },
    bytes: { type: 'integer', description: "Bytes of the run's log now stored." },
    truncated: { type: 'boolean', description: 'The log reached RUN_LOG_MAX_BYTES: later output is dropped.' },
  },
};

const runId: OpenAPIV3_1.ParameterObject = { name: 'runId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const tags = ['Runs'];

/** The runs of a resource and their logs (docs/contract.md §2, "Runs"). */
export function runPaths(): Paths {
  return {
    '/api/resources/{id}/runs': {
      get: {
        tags,
        operationId: 'list_runs',
        summary: "List a resource's runs",
        description: 'Newest first by default; filter by `status`, `action`, `actorId`, times. Needs `resource:read`.',
        parameters: [param('id'), param('filter'), param('sort'), param('range')],
        responses: {
          '200': jsonResponse('The page of runs.', { type: 'array', items: runSchema }, { 'Content-Range': header('ContentRange') }),
          ...problems(400, 401, 403, 503),
        },
      },
    },
    '/api/resources/{id}/runs/{runId}': {
      get: {
        tags,
        operationId: 'get_run',
        summary: 'Get one run',
        description: 'Needs `resource:read`.',
        parameters: [param('id'), runId],
        responses: { '200': jsonResponse('The run.', runSchema), ...problems(400, 401, 403, 404, 503) },
      },
    },
    '/api/resources/{id}/runs/{runId}/logs': {
      get: {
        tags,
        operationId: 'get_run_log',
        summary: "Read a run's log",
        description:
          `The chunks after \`after\` (default 0), at most \`limit\` (default and most ${LOG_PAGE_CHUNKS}) and about 1 MiB. ` +
          'Live: the GraphQL subscription `runLog(runId, after)`. Needs `resource:read`.',
        parameters: [
          param('id'),
          runId,
          { name: 'after', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LOG_PAGE_CHUNKS } },
        ],
        responses: {
          '200': jsonResponse('A page of the log.', {
            type: 'object',
            required: ['runId', 'status', 'chunks', 'bytes', 'truncated'],
            properties: {
              runId: { type: 'string', format: 'uuid' },
              status: {
                type: 'string',
                enum: [...RUN_STATUSES],
                description: 'The log is complete once the run succeeded, failed or was cancelled.',
              },
              chunks: { type: 'array', items: chunkSchema },
              bytes: { type: 'integer' },
              truncated: { type: 'boolean' },
            },
          }),
          ...problems(400, 401, 403, 404, 503),
        },
      },
      post: {
        tags,
        operationId: 'append_run_log',
        summary: "Append to a run's log (runner)",
        description:
          'For runner service accounts with `resource:write` (or `resource:admin`), while the run is queued or in progress (409 ' +
          "after). Stored secret values of the resource's sensitive variables, secrets and integrations are masked before storage; at " +
          'most RUN_LOG_MAX_BYTES per run, then a truncation marker and nothing more.',
        parameters: [param('id'), runId, param('idempotencyKey')],
        requestBody: jsonBody(schemaOf(appendRunLogBody)),
        responses: { '200': jsonResponse('What was stored.', appendedSchema), ...problems(400, 401, 403, 404, 409, 503) },
      },
    },
  };
}
