import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * The MCP server at /api/mcp (docs/api/mcp.md) with the SDK's own client over real HTTP: the tools
 * act as the caller, so a default user may request a resource but not approve it, and the lead of
 * the template's team may; a client without a token is refused.
 */

interface ToolText {
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly isError?: boolean;
}

const textOf = (result: unknown): string => (result as ToolText).content.map((part) => part.text ?? '').join('');
// The tests name the shape each tool answers.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
const jsonOf = <T>(result: unknown): T => JSON.parse(textOf(result)) as T;

for (const target of oneDatabaseTarget()) {
  describe(`the MCP server on ${target.name}`, () => {
    let h: HttpHarness;
    let endpoint: URL;
    let lena: string;
    let bob: string;
    let templateId: string;
    const clients: Client[] = [];

    const connect = async (token?: string): Promise<Client> => {
      const client = new Client({ name: 'infraledger-test', version: '1' });
      const transport = new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      h = await openHttpApp(target);
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      endpoint = new URL(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp`);
      lena = await h.serviceAccount('mcp-lena', ['default']);
      bob = await h.serviceAccount('mcp-bob', ['default']);
      const lenaId = (await h.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${lena}` } })).json<{
        id: string;
      }>().id;
      const team = await h.inject({ method: 'POST', url: '/api/teams', payload: { name: 'mcp payments', leadIds: [lenaId] } });
      expect(team.statusCode, team.body).toBe(201);
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'mcp postgres', template: 'mcp_postgres', abstract: true, ownerId: team.json<{ id: string }>().id },
      });
      expect(template.statusCode, template.body).toBe(201);
      templateId = template.json<{ id: string }>().id;
    });
    afterAll(async () => {
      for (const client of clients) await client.close();
      await h.close();
    });

    it('lists its tools and the schema, and searches as the caller', async () => {
      const client = await connect(bob);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ['approve_resource', 'get', 'history', 'list', 'reject_resource', 'request_resource', 'run_log', 'search'].sort(),
      );
      const found = jsonOf<{ id: string; kind: string }[]>(await client.callTool({ name: 'search', arguments: { q: 'mcp postgres' } }));
      expect(found).toEqual([expect.objectContaining({ id: templateId, kind: 'template' })]);
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toContain('infraledger://schema.graphql');
      const schema = await client.readResource({ uri: 'infraledger://schema.graphql' });
      expect(JSON.stringify(schema.contents)).toContain('type Template');
    });

    it('requests a resource as a default user, refuses that user the approval and lets the lead approve it', async () => {
      const asBob = await connect(bob);
      const requested = await asBob.callTool({ name: 'request_resource', arguments: { name: 'mcp-orders-db', templateId } });
      expect((requested as ToolText).isError, textOf(requested)).toBe(false);
      const resource = jsonOf<{ id: string; status: string }>(requested);
      expect(resource.status).toBe('approval_pending');

      const refused = await asBob.callTool({ name: 'approve_resource', arguments: { id: resource.id } });
      expect((refused as ToolText).isError).toBe(true);
      expect(jsonOf<{ code: string }>(refused).code).toBe('FORBIDDEN');

      const asLena = await connect(lena);
      const approved = await asLena.callTool({ name: 'approve_resource', arguments: { id: resource.id, reason: 'fits the budget' } });
      expect((approved as ToolText).isError, textOf(approved)).toBe(false);
      expect(jsonOf<{ status: string }>(approved).status).not.toBe('approval_pending');

      const history = jsonOf<{ verb: string; reason: string | null }[]>(
        await asBob.callTool({ name: 'history', arguments: { kind: 'resource', id: resource.id } }),
      );
      expect(history.map((entry) => entry.verb)).toContain('approved');
      expect(history.find((entry) => entry.verb === 'approved')?.reason).toBe('fits the budget');
    });

    it('answers a bad argument with the API’s own error, naming the field', async () => {
      const client = await connect(bob);
      const bad = await client.callTool({ name: 'request_resource', arguments: { name: '', templateId } });
      expect((bad as ToolText).isError).toBe(true);
      expect(textOf(bad)).toContain('name');
    });

    it('refuses a client without a token, and keeps no stream or session (GET and DELETE answer 405)', async () => {
      await expect(connect()).rejects.toThrow(/401|UNAUTHENTICATED|Unauthorized/i);
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await h.inject({ method, url: '/api/mcp' });
        expect(response.statusCode).toBe(405);
        expect(response.json<{ code: string }>().code).toBe('METHOD_NOT_ALLOWED');
      }
    });
  });
}
