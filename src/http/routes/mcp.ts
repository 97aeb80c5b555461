import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authorize } from '../../edge/authorize.js';
import { AppError } from '../../errors.js';
import { buildSchemaDocument } from '../../graphql/sdl.js';
import { DECLARED_ENTITIES } from '../../model/catalog.js';

/**
 * The Model Context Protocol server at `/api/mcp` (Streamable HTTP, stateless: every POST stands
 * alone), for assistants. The caller's bearer token signs it in and every tool is a request to this
 * API with that same token, so the caller's permissions, validation, audit and limits apply exactly
 * as they do to any client (docs/api/mcp.md).
 */

const KINDS = DECLARED_ENTITIES.map((entity) => entity.kind) as [string, ...string[]];
const PLURAL_OF = new Map(DECLARED_ENTITIES.map((entity) => [entity.kind, entity.plural]));
const kind = z.enum(KINDS).describe('The entity kind, e.g. `template` or `resource`.');
const id = z.uuid().describe('The entity id.');

/** The contract, from the package's docs (absent from an installation without them). */
function contractText(): string | undefined {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, 'docs', 'contract.md');
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return undefined;
}

const SDL = buildSchemaDocument();
const CONTRACT = contractText();

/** The MCP server of one request: its tools call this API as the caller. */
function serverFor(request: FastifyRequest): McpServer {
  const server = new McpServer({ name: 'infraledger', version: '1' });
  const authorization = request.headers.authorization ?? '';

  /** One request to this API as the caller; its answer (or problem) is the tool's result. */
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<CallToolResult> => {
    const response = await request.server.inject({
      method,
      url,
      headers: { authorization, 'x-request-id': request.id, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      ...(payload !== undefined && { payload: JSON.stringify(payload) }),
    });
    const text = response.body === '' ? `${response.statusCode}` : response.body;
    return { content: [{ type: 'text', text }], isError: response.statusCode >= 400 };
  };
  const query = (params: Readonly<Record<string, unknown>>): string => {
    const entries = Object.entries(params).flatMap(([key, value]): [string, string][] =>
      value === undefined ? [] : [[key, typeof value === 'string' ? value : JSON.stringify(value)]],
    );
    return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
  };
  const plural = (of: string): string => PLURAL_OF.get(of) ?? of;

  server.registerTool(
    'search',
    {
      description: 'Search every kind you may read by name, other searched fields, labels, description and id; best first.',
      inputSchema: { q: z.string().min(1).max(200), kinds: z.array(kind).optional(), range: z.tuple([z.int(), z.int()]).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ q, kinds, range }) => call('GET', `/api/search${query({ q, kinds, range })}`),
  );
  server.registerTool(
    'list',
    {
      description:
        'A page of entities of one kind: `filter` (e.g. {"name__like": "pay"}, {"ownerId": "<team id>"}), `sort` ' +
        '(["name", "ASC"]), `range` ([offset, limit]), as the REST lists take them.',
      inputSchema: {
        kind,
        filter: z.record(z.string(), z.unknown()).optional(),
        sort: z.tuple([z.string(), z.enum(['ASC', 'DESC'])]).optional(),
        range: z.tuple([z.int(), z.int()]).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ kind: of, filter, sort, range }) => call('GET', `/api/${plural(of)}${query({ filter, sort, range })}`),
  );
  server.registerTool(
    'get',
    { description: 'One entity by kind and id.', inputSchema: { kind, id }, annotations: { readOnlyHint: true } },
    ({ kind: of, id: entityId }) => call('GET', `/api/${plural(of)}/${entityId}`),
  );
  server.registerTool(
    'history',
    {
      description: "An entity's history from the audit log, newest first: who did what, the fields changed, reasons.",
      inputSchema: { kind, id },
      annotations: { readOnlyHint: true },
    },
    ({ kind: of, id: entityId }) =>
      call('GET', `/api/audit_log${query({ filter: { entityType: of, entityId }, sort: ['at', 'DESC'], range: [0, 50] })}`),
  );
  server.registerTool(
    'request_resource',
    {
      description:
        'Request a resource from a template (with approvals on, it waits for the approvers). `variables` are checked against the ' +
        "template's declared variables; the answer names any that are wrong.",
      inputSchema: {
        name: z.string(),
        templateId: id,
        sourceCodeVersionId: id.optional(),
        variables: z.record(z.string(), z.unknown()).optional(),
        description: z.string().optional(),
        ownerId: id.optional(),
      },
    },
    (input) => call('POST', '/api/resources', input),
  );
  for (const decision of ['approve', 'reject'] as const) {
    server.registerTool(
      `${decision}_resource`,
      {
        description: `${decision === 'approve' ? 'Approve' : 'Reject'} a resource request waiting for approval (for those who may).`,
        inputSchema: { id, reason: z.string().max(2000).optional() },
      },
      ({ id: resourceId, reason }) =>
        call('POST', `/api/resources/${resourceId}/actions/${decision}`, reason === undefined ? {} : { reason }),
    );
  }
  server.registerTool(
    'run_log',
    {
      description: "A page of a run's log (`after`: the offset the previous page ended at).",
      inputSchema: { resourceId: id, runId: id, after: z.int().min(0).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ resourceId, runId, after }) => call('GET', `/api/resources/${resourceId}/runs/${runId}/logs${query({ after })}`),
  );

  server.registerResource(
    'graphql-schema',
    'infraledger://schema.graphql',
    { description: 'The GraphQL schema (SDL) of this service.', mimeType: 'application/graphql' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/graphql', text: SDL }] }),
  );
  if (CONTRACT !== undefined) {
    server.registerResource(
      'contract',
      'infraledger://contract.md',
      { description: 'What the service promises, field by field.', mimeType: 'text/markdown' },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: CONTRACT }] }),
    );
  }
  return server;
}

/** `POST /api/mcp` (signed in); GET and DELETE answer 405: a stateless server keeps no stream or session. */
export function mcpRoutes(app: FastifyInstance): void {
  app.post('/mcp', async (request, reply) => {
    authorize(request);
    const server = serverFor(request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const stateless = (): never => {
    throw new AppError('METHOD_NOT_ALLOWED', 'the MCP server is stateless: POST each message to /api/mcp');
  };
  app.get('/mcp', stateless);
  app.delete('/mcp', stateless);
}
