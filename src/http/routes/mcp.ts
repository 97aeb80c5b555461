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
import { resourceEntity } from '../../model/resource.js';
import { parseInput } from '../../validation.js';
import { toProblem } from '../problem.js';
import { everyAnswerHeaders } from '../security-headers.js';

/**
 * The Model Context Protocol server at `/api/mcp` (Streamable HTTP, stateless: every POST stands
 * alone), for assistants. The caller's bearer token signs it in and every tool is a request to this
 * API with that same token, so the caller's permissions, validation, audit and limits apply exactly
 * as they do to any client (docs/api/mcp.md).
 */

const KINDS = DECLARED_ENTITIES.map((entity) => entity.kind) as [string, ...string[]];
const PLURAL_OF = new Map(DECLARED_ENTITIES.map((entity) => [entity.kind, entity.plural]));
const kind = z.enum(KINDS, { message: `must be one of ${KINDS.join(', ')}` }).describe('The entity kind, e.g. `template` or `resource`.');
const id = z.uuid({ message: 'must be a UUID' }).describe('The entity id.');
const range = z.tuple([z.int(), z.int()]);
const decision = { id, reason: z.string().max(2000, 'at most 2000 characters').optional() };

/** Each tool's arguments: the SDK checks them for discovery and calls, and a refusal is re-read with them (`refusalOf`). */
const INPUTS = {
  search: {
    q: z.string().min(1, 'must not be empty').max(200, 'at most 200 characters'),
    kinds: z.array(kind).optional(),
    range: range.optional(),
  },
  list: {
    kind,
    filter: z.record(z.string(), z.unknown()).optional(),
    sort: z.tuple([z.string(), z.enum(['ASC', 'DESC'])]).optional(),
    range: range.optional(),
  },
  get: { kind, id },
  history: { kind, id },
  request_resource: {
    name: z.string(),
    templateId: id,
    sourceCodeVersionId: id.optional(),
    // The REST body's own schema: `[{name, value, sensitive}]`.
    variables: resourceEntity.fields.variables.input.optional(),
    description: z.string().optional(),
    ownerId: id.optional(),
  },
  approve_resource: decision,
  reject_resource: decision,
  run_log: { resourceId: id, runId: id, after: z.int().min(0, 'must be 0 or more').optional() },
} as const satisfies Record<string, z.ZodRawShape>;

const TOOL_SCHEMAS: ReadonlyMap<string, z.ZodObject> = new Map(Object.entries(INPUTS).map(([name, shape]) => [name, z.object(shape)]));

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
      inputSchema: INPUTS.search,
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
      inputSchema: INPUTS.list,
      annotations: { readOnlyHint: true },
    },
    ({ kind: of, filter, sort, range }) => call('GET', `/api/${plural(of)}${query({ filter, sort, range })}`),
  );
  server.registerTool(
    'get',
    { description: 'One entity by kind and id.', inputSchema: INPUTS.get, annotations: { readOnlyHint: true } },
    ({ kind: of, id: entityId }) => call('GET', `/api/${plural(of)}/${entityId}`),
  );
  server.registerTool(
    'history',
    {
      description: "An entity's history from the audit log, newest first: who did what, the fields changed, reasons.",
      inputSchema: INPUTS.history,
      annotations: { readOnlyHint: true },
    },
    async ({ kind: of, id: entityId }) => {
      const answer = await call(
        'GET',
        `/api/audit_log${query({ filter: { entityType: of, entityId }, sort: ['at', 'DESC'], range: [0, 50] })}`,
      );
      // The log holds every entity's creation: no entry the caller may read is an entity that does not exist for them.
      if (answer.isError !== true && textOf(answer) === '[]') {
        return problemResult(
          new AppError('NOT_FOUND', `no ${of.replaceAll('_', ' ')} ${entityId} in the history you may read`),
          request.id,
        );
      }
      return answer;
    },
  );
  server.registerTool(
    'request_resource',
    {
      description:
        'Request a resource from a template (with approvals on, it waits for the approvers). `variables` is a list of ' +
        '`{name, value, sensitive}` as the REST API takes it (e.g. [{"name": "size", "value": 20}]); they are checked against the ' +
        "version's declared variables and the answer names any that are wrong.",
      inputSchema: INPUTS.request_resource,
    },
    (input) => call('POST', '/api/resources', input),
  );
  for (const decision of ['approve', 'reject'] as const) {
    server.registerTool(
      `${decision}_resource`,
      {
        description: `${decision === 'approve' ? 'Approve' : 'Reject'} a resource request waiting for approval (for those who may).`,
        inputSchema: INPUTS[`${decision}_resource`],
      },
      ({ id: resourceId, reason }) =>
        call('POST', `/api/resources/${resourceId}/actions/${decision}`, reason === undefined ? {} : { reason }),
    );
  }
  server.registerTool(
    'run_log',
    {
      description: "A page of a run's log (`after`: the offset the previous page ended at).",
      inputSchema: INPUTS.run_log,
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

/** The text of a tool's result. */
const textOf = (result: CallToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

/** A tool's result that is the API's problem document for `error`, exactly as REST answers it. */
const problemResult = (error: unknown, requestId: string): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(toProblem(error, requestId)) }],
  isError: true,
});

/**
 * The problem a refused tool call is: its arguments checked once more with the tool's own schema
 * (the one the SDK refused them with), so the refusal lists each field as a REST 400 does; an
 * unknown tool is a 404. Undefined for a call the SDK did not refuse.
 */
function refusalOf(call: { name?: unknown; arguments?: unknown }, text: string): AppError | undefined {
  if (!/^(MCP error -32602: )?(Input validation error|Invalid arguments|Tool \S+ (not found|disabled))/.test(text)) return undefined;
  const name = typeof call.name === 'string' ? call.name : '';
  const schema = TOOL_SCHEMAS.get(name);
  if (!schema) return new AppError('NOT_FOUND', `no tool ${name}; the tools are listed by tools/list`);
  try {
    parseInput(schema, call.arguments ?? {}, 'arguments');
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  return new AppError('VALIDATION', text.replace(/^MCP error -32602: /, ''));
}

interface JsonRpcMessage {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: { name?: unknown; arguments?: unknown };
  readonly result?: unknown;
}

/**
 * Makes every refusal of a tool call the API's problem document (docs/api/mcp.md): the SDK answers
 * arguments its schema refuses with plain text, so the transport's answers are rewritten on their
 * way out, matched to their calls by JSON-RPC id.
 */
function answerWithProblems(transport: StreamableHTTPServerTransport, requestId: string): void {
  const calls = new Map<unknown, { name?: unknown; arguments?: unknown }>();
  const received = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const rpc = message as JsonRpcMessage;
    if (rpc.method === 'tools/call' && rpc.id !== undefined) calls.set(rpc.id, rpc.params ?? {});
    received?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const rpc = message as JsonRpcMessage;
    const call = calls.get(rpc.id);
    const result = rpc.result as CallToolResult | undefined;
    if (call === undefined || result?.isError !== true) return send(message, options);
    const refusal = refusalOf(call, textOf(result));
    return send(refusal ? { ...message, result: problemResult(refusal, requestId) } : message, options);
  };
}

/** `POST /api/mcp` (signed in); GET and DELETE answer 405: a stateless server keeps no stream or session. */
export function mcpRoutes(app: FastifyInstance, baseUrl: string): void {
  app.post('/mcp', async (request, reply) => {
    authorize(request);
    const server = serverFor(request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The SDK writes the answer itself, past the hooks that give every other answer these headers.
    for (const [name, value] of Object.entries(everyAnswerHeaders(request, baseUrl))) reply.raw.setHeader(name, value);
    // What an assistant reads through its token is the caller's: no cache keeps it.
    reply.raw.setHeader('Cache-Control', 'no-store');
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    answerWithProblems(transport, request.id);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const stateless = (): never => {
    throw new AppError('METHOD_NOT_ALLOWED', 'the MCP server is stateless: POST each message to /api/mcp');
  };
  app.get('/mcp', stateless);
  app.delete('/mcp', stateless);
}
