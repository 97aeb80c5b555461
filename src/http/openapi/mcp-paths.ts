import { jsonBody, jsonResponse, problems, type Paths } from './components.js';

const stateless = {
  tags: ['MCP'],
  summary: 'Not offered: the MCP server is stateless',
  description: 'No server-to-client stream and no session to end: POST each message.',
  responses: problems(405),
};

/** `/api/mcp`: the Model Context Protocol server (docs/api/mcp.md). */
export function mcpPaths(): Paths {
  return {
    '/api/mcp': {
      post: {
        tags: ['MCP'],
        operationId: 'mcp',
        summary: 'A Model Context Protocol message',
        description:
          'One JSON-RPC message of the Model Context Protocol (Streamable HTTP transport, stateless; send `Accept: application/json, ' +
          'text/event-stream`). Its tools are requests to this API made with your token: see docs/api/mcp.md.',
        requestBody: jsonBody({ type: 'object', additionalProperties: true, description: 'A JSON-RPC 2.0 request or notification.' }),
        responses: {
          '200': jsonResponse('The JSON-RPC response.', { type: 'object', additionalProperties: true }),
          '202': { description: 'A notification, accepted.' },
          ...problems(401),
        },
      },
      get: { ...stateless, operationId: 'mcp_stream' },
      delete: { ...stateless, operationId: 'mcp_end_session' },
    },
  };
}
