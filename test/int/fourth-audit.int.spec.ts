import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { collect, wsClient, type Received } from '../support/graphql-ws.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';
import { startReceiver, until } from '../support/receiver.js';

type Json = Record<string, unknown>;

interface Problem {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors?: readonly { field: string; message: string }[];
}

interface ToolResult {
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly isError?: boolean;
}

const textOf = (result: unknown): string => (result as ToolResult).content.map((part) => part.text ?? '').join('');

/**
 * What the fourth audit found, one finding per test (docs/contract.md §6, §7, §9, §10): the audit
 * log, live changes and webhooks keep to the per-entity read rule (deleted entities as they last
 * stood); webhooks act as a user and pause when that user can no longer manage them; nobody approves
 * their own request unless the team allows it; only `team:write` renames or deletes a team; the MCP
 * server answers with the common headers and problem documents and takes REST-shaped variables;
 * `whsec_` secrets verify with the `standardwebhooks` library and the documented openssl line;
 * oversized requests close cleanly; notification URLs, as-of positions and unknown histories are
 * refused like their neighbours.
 */
for (const target of databaseTargets()) {
  describe(`the fourth audit's findings on ${target.name}`, () => {
    let h: HttpHarness;
    let baseUrl: string;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    /** alice: a payments member; lena: the payments lead; bob: a search member; all role default. */
    const people = {} as Record<'alice' | 'lena' | 'bob', { token: string; id: string }>;
    let payments: string;
    let privateIntegration: string;
    let deletedSecret: string;
    let unownedSecret: string;
    let paymentsTemplate: string;
    const clients: Client[] = [];

    const as = (who: keyof typeof people | null) => (who === null ? {} : { headers: { authorization: `Bearer ${people[who].token}` } });
    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: keyof typeof people | null = null, payload?: Json) =>
      h.inject({ method, url, ...(payload === undefined ? {} : { payload }), ...as(who) });
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body it expects
    const ok = <T = Json>(response: LightMyRequestResponse, status = 200): T => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json<T>();
    };
    const auditOf = (entityId: string) => `/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId }))}`;
    const gql = async (query: string, who: keyof typeof people | null, variables: Json = {}) =>
      (await call('POST', '/api/graphql', who, { query, variables })).json<{ data: Json | null; errors?: { extensions?: Json }[] }>();
    const mcp = async (who: keyof typeof people): Promise<Client> => {
      const client = new Client({ name: 'audit-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${people[who].token}` } },
        }),
      );
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      receiver = await startReceiver();
      h = await openHttpApp(target, { env: { WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' }, webhookPollIntervalMs: 30 });
      baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
      for (const name of ['alice', 'lena', 'bob'] as const) {
        const token = await h.serviceAccount(`audit4-${name}`, ['default']);
        const me = ok<{ id: string }>(
          await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } }),
        );
        people[name] = { token, id: me.id };
      }
      payments = ok<{ id: string }>(
        await call('POST', '/api/teams', null, { name: 'payments', memberIds: [people.alice.id], leadIds: [people.lena.id] }),
        201,
      ).id;
      ok(await call('POST', '/api/teams', null, { name: 'search', memberIds: [people.bob.id] }), 201);
      privateIntegration = ok<{ id: string }>(
        await call('POST', '/api/integrations', null, {
          name: 'payments aws',
          integrationType: 'cloud',
          integrationProvider: 'aws',
          ownerId: payments,
          configuration: { awsAccount: '123456789012', awsAccessKeyId: 'AKIAPAYMENTSPRIVATE1', awsSecretAccessKey: 'not-shown-anywhere' },
        }),
        201,
      ).id;
      const secret = (name: string, ownerId: string | null) => ({
        name,
        secretProvider: 'custom',
        ownerId,
        configuration: { secrets: [{ name: 'K', value: `value-of-${name}` }] },
      });
      deletedSecret = ok<{ id: string }>(await call('POST', '/api/secrets', null, secret('payments token', payments)), 201).id;
      expect((await call('DELETE', `/api/secrets/${deletedSecret}`)).statusCode).toBe(204);
      unownedSecret = ok<{ id: string }>(await call('POST', '/api/secrets', null, secret('shared token', null)), 201).id;
      paymentsTemplate = ok<{ id: string }>(
        await call('POST', '/api/templates', null, {
          name: 'payments queue',
          template: 'payments_queue',
          abstract: true,
          ownerId: payments,
        }),
        201,
      ).id;
    }, 60_000);
    afterAll(async () => {
      for (const client of clients) await client.close();
      await h.close();
      await receiver.close();
    });

    it("keeps another team's private integration and deleted private secret out of the audit log, its CSV, GraphQL and MCP", async () => {
      for (const id of [privateIntegration, deletedSecret]) {
        expect(ok<unknown[]>(await call('GET', auditOf(id), 'bob'))).toEqual([]);
        const csv = await h.inject({ method: 'GET', url: auditOf(id), headers: { accept: 'text/csv', ...as('bob').headers } });
        expect(csv.statusCode).toBe(200);
        expect(csv.body.trim().split('\n')).toHaveLength(1); // the header alone
        const graph = await gql('query($id: String) { auditLog(filter: {entityId: $id}) { id entityType entityId action } }', 'bob', {
          id,
        });
        expect(graph.data).toEqual({ auditLog: [] });
        // The owning team's members read them, the deleted one as it last stood.
        expect(ok<unknown[]>(await call('GET', auditOf(id), 'alice')).length).toBeGreaterThan(0);
      }
      expect(JSON.stringify(ok(await call('GET', '/api/audit_log?range=[0,1000]', 'bob')))).not.toContain('AKIAPAYMENTSPRIVATE1');
      expect(ok<unknown[]>(await call('GET', auditOf(unownedSecret), 'bob')).length).toBeGreaterThan(0);
      const client = await mcp('bob');
      const history = await client.callTool({ name: 'history', arguments: { kind: 'integration', id: privateIntegration } });
      expect(history.isError).toBe(true);
      expect(JSON.parse(textOf(history))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    });

    it("replays no change of another team's deleted private secret to a subscriber who holds secret:read", async () => {
      const query = 'subscription($ids: [UUID!]) { changes(entityTypes: ["secret"], entityIds: $ids, after: "0") { entityId action } }';
      const ids = [deletedSecret, unownedSecret];
      const bob = wsClient(baseUrl, people.bob.token);
      const alice = wsClient(baseUrl, people.alice.token);
      const bobs = collect(bob, query, { ids });
      const alices = collect(alice, query, { ids });
      // The replay ends with the unowned secret's create: both have seen everything once it arrives.
      const seen = (items: readonly Received[]) =>
        items.flatMap((item) => ('data' in item ? [(item.data.changes as { entityId: string; action: string }).action] : []));
      await alices.waitFor(3);
      await bobs.waitFor(1);
      expect(seen(alices.items)).toEqual(['SecretCreated', 'SecretDeleted', 'SecretCreated']);
      ok(await call('PATCH', `/api/secrets/${unownedSecret}`, null, { description: 'after the replay' }));
      await bobs.waitFor(2);
      expect(seen(bobs.items)).toEqual(['SecretCreated', 'SecretUpdated']);
      for (const subscription of [bobs, alices]) subscription.unsubscribe();
      await bob.dispose();
      await alice.dispose();
    });

    it('pauses a webhook whose user lost the right to manage it, sends nothing meanwhile, and resumes for whoever takes it over', async () => {
      const wes = await h.serviceAccount('audit4-wes', ['default'], ['secret:admin']);
      const wesId = ok<{ id: string }>(
        await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${wes}` } }),
      ).id;
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const webhook = ok<{ id: string; deliversAsId: string; pausedReason: string | null }>(
        await h.inject({
          method: 'POST',
          url: '/api/webhooks',
          headers: { authorization: `Bearer ${wes}` },
          payload: { name: 'secrets out', url: `${receiver.url}/wes`, entityKinds: ['secret'], secret },
        }),
        201,
      );
      expect(webhook).toMatchObject({ deliversAsId: wesId, pausedReason: null });
      const create = async (name: string) =>
        ok<{ id: string }>(
          await call('POST', '/api/secrets', null, {
            name,
            secretProvider: 'custom',
            ownerId: payments,
            configuration: { secrets: [{ name: 'K', value: name }] },
          }),
          201,
        ).id;
      const first = await create('delivered while wes may');
      await until(() => receiver.deliveries.some((d) => d.event.data.entityId === first), 'the first secret delivered');
      // The grant goes: the next round pauses the webhook, with the reason on it and in the audit log.
      ok(await call('PATCH', `/api/users/${wesId}`, null, { grants: [] }));
      await until(
        async () => ok<{ pausedReason: string | null }>(await call('GET', `/api/webhooks/${webhook.id}`)).pausedReason !== null,
        'the webhook paused',
      );
      const paused = ok<{ pausedReason: string }>(await call('GET', `/api/webhooks/${webhook.id}`));
      expect(paused.pausedReason).toBe('the user it acts as (audit4-wes) no longer holds webhook:write');
      const entries = ok<{ diff: { field: string; after?: unknown }[]; actorId: string | null }[]>(await call('GET', auditOf(webhook.id)));
      expect(
        entries.some((e) => e.actorId === null && e.diff.some((d) => d.field === 'pausedReason' && d.after === paused.pausedReason)),
      ).toBe(true);
      const second = await create('created while paused');
      const position = (await h.services.store.lastPosition()) ?? 0n;
      // Every delivery round has passed the write by the time the projections have: nothing may arrive for it.
      await h.services.waitFor(['secrets'], position);
      expect(receiver.deliveries.filter((d) => d.path === '/wes').map((d) => d.event.data.entityId)).toEqual([first]);
      // Taking it over needs the right to manage it; then it delivers, as the taker, from where it stopped.
      const denied = await h.inject({
        method: 'POST',
        url: `/api/webhooks/${webhook.id}/actions/takeOver`,
        headers: { authorization: `Bearer ${wes}` },
      });
      expect(denied.statusCode).toBe(403);
      const taken = ok<{ deliversAsId: string; pausedReason: string | null }>(
        await call('POST', `/api/webhooks/${webhook.id}/actions/takeOver`),
      );
      expect(taken.pausedReason).toBeNull();
      expect(taken.deliversAsId).not.toBe(wesId);
      await until(
        () => receiver.deliveries.some((d) => d.event.data.entityId === second),
        'the second secret delivered after the take-over',
      );
    });

    it('pauses a webhook whose user is deactivated', async () => {
      const vic = await h.serviceAccount('audit4-vic', ['default'], ['template:admin']);
      const vicId = ok<{ id: string }>(
        await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${vic}` } }),
      ).id;
      const webhook = ok<{ id: string }>(
        await h.inject({
          method: 'POST',
          url: '/api/webhooks',
          headers: { authorization: `Bearer ${vic}` },
          payload: {
            name: 'templates out',
            url: `${receiver.url}/vic`,
            entityKinds: ['template'],
            secret: 'a-plain-secret-of-thirty-two-chars',
          },
        }),
        201,
      );
      ok(await call('POST', `/api/users/${vicId}/actions/deactivate`));
      await until(
        async () =>
          ok<{ pausedReason: string | null }>(await call('GET', `/api/webhooks/${webhook.id}`)).pausedReason ===
          'the user it acts as (audit4-vic) was deactivated',
        'the webhook paused',
      );
    });

    it('refuses anyone approving their own request unless the team allows it, and the approval then says so', async () => {
      const request = async (who: keyof typeof people | null, name: string) =>
        ok<{ id: string }>(await call('POST', '/api/resources', who, { name, templateId: paymentsTemplate }), 201).id;
      const leads = await request('lena', 'lena queue');
      const refused = await call('POST', `/api/resources/${leads}/actions/approve`, 'lena', {});
      expect(refused.statusCode).toBe(403);
      expect(refused.json<Problem>()).toMatchObject({
        code: 'SELF_APPROVAL',
        detail: 'you requested this resource, so another approver must approve it (team payments does not allow self-approval)',
      });
      // Not even super.
      const admins = await request(null, 'admin queue');
      expect((await call('POST', `/api/resources/${admins}/actions/approve`, null, {})).json<Problem>().code).toBe('SELF_APPROVAL');
      // Rejecting (withdrawing) one's own request stays possible; another approver approves.
      ok(await call('POST', `/api/resources/${admins}/actions/approve`, 'lena', {}));
      // The lead may not lift it; team:write may, and then the event keeps that it was a self-approval.
      expect((await call('PATCH', `/api/teams/${payments}`, 'lena', { allowSelfApproval: true })).statusCode).toBe(403);
      ok(await call('PATCH', `/api/teams/${payments}`, null, { allowSelfApproval: true }));
      ok(await call('POST', `/api/resources/${leads}/actions/approve`, 'lena', {}));
      const [approved] = ok<{ verb: string; changes: { authority?: string } }[]>(
        await call('GET', `${auditOf(leads)}&sort=["position","DESC"]`),
      );
      expect(approved?.changes.authority).toBe('lead of team payments; own request, self-approval allowed by team payments');
      ok(await call('PATCH', `/api/teams/${payments}`, null, { allowSelfApproval: false }));
    });

    it('leaves renaming, disabling and deleting a team to team:write; its lead changes its members', async () => {
      const scratch = ok<{ id: string }>(await call('POST', '/api/teams', null, { name: 'scratch', leadIds: [people.lena.id] }), 201).id;
      for (const [method, url, payload] of [
        ['PATCH', `/api/teams/${scratch}`, { name: 'renamed by its lead' }],
        ['POST', `/api/teams/${scratch}/actions/disable`, {}],
        ['DELETE', `/api/teams/${scratch}`, undefined],
      ] as const) {
        const answer = await call(method, url, 'lena', payload);
        expect(answer.statusCode, `${method} ${url}`).toBe(403);
        expect(answer.json<{ missingPermission: string }>().missingPermission).toBe('team:write');
      }
      ok(await call('PATCH', `/api/teams/${scratch}`, 'lena', { memberIds: [people.bob.id] }));
      expect((await call('DELETE', `/api/teams/${scratch}`)).statusCode).toBe(204);
    });

    it('answers MCP with the headers every answer has', async () => {
      const response = await fetch(`${baseUrl}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${people.bob.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-request-id': 'audit4-mcp-1',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-request-id')).toBe('audit4-mcp-1');
    });

    it('refuses a loopback notification URL at save, as webhooks do', async () => {
      const h2 = await openHttpApp(target);
      try {
        for (const [provider, configuration, field] of [
          ['slack', { botToken: 'xoxb-test', apiUrl: 'http://127.0.0.1:9/api' }, 'configuration.apiUrl'],
          ['incoming_webhook', { webhookUrl: 'http://[::1]:9/hook' }, 'configuration.webhookUrl'],
        ] as const) {
          const answer = await h2.inject({
            method: 'POST',
            url: '/api/integrations',
            payload: { name: `chat ${provider}`, integrationType: 'notification', integrationProvider: provider, configuration },
          });
          expect(answer.statusCode, answer.body).toBe(422);
          expect(answer.json<Problem>().errors?.map((e) => e.field)).toEqual([field]);
        }
      } finally {
        await h2.close();
      }
    });

    it('takes MCP request_resource variables in the REST shape', async () => {
      const client = await mcp('alice');
      const variables = [
        { name: 'size', value: 20 },
        { name: 'password', value: 'hunter2-long', sensitive: true },
      ];
      const result = await client.callTool({
        name: 'request_resource',
        arguments: { name: 'mcp with variables', templateId: paymentsTemplate, variables },
      });
      expect(result.isError, textOf(result)).toBe(false);
      const created = JSON.parse(textOf(result)) as { variables: unknown };
      expect(created.variables).toEqual([
        { name: 'size', value: 20, sensitive: false },
        { name: 'password', value: '********', sensitive: true },
      ]);
    });

    it('answers every invalid MCP tool call with the problem document and its stable code', async () => {
      const client = await mcp('bob');
      for (const [name, args, code, field] of [
        ['get', { kind: 'nope', id: unownedSecret }, 'VALIDATION', 'kind'],
        ['get', { kind: 'secret', id: 'not-a-uuid' }, 'VALIDATION', 'id'],
        ['search', { q: '' }, 'VALIDATION', 'q'],
        ['list', { kind: 'template', range: [0] }, 'VALIDATION', 'range'],
        ['history', { kind: 'secret' }, 'VALIDATION', 'id'],
        ['request_resource', { name: 'x', templateId: paymentsTemplate, variables: { size: 20 } }, 'VALIDATION', 'variables'],
        ['approve_resource', { id: 7 }, 'VALIDATION', 'id'],
        ['run_log', { resourceId: unownedSecret, runId: unownedSecret, after: -1 }, 'VALIDATION', 'after'],
        ['no_such_tool', {}, 'NOT_FOUND', undefined],
      ] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBe(true);
        const problem = JSON.parse(textOf(result)) as Problem;
        expect(problem.code, `${name}: ${textOf(result)}`).toBe(code);
        const fields = problem.errors?.map((e) => e.field) ?? [];
        if (field !== undefined)
          expect(
            fields.some((f) => f === field || f.startsWith(`${field}.`)),
            `${name}: ${fields.join(', ')}`,
          ).toBe(true);
      }
    });

    it('signs deliveries so that the standardwebhooks library and the documented openssl line verify a whsec_ secret', async () => {
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const webhook = ok<{ id: string }>(
        await call('POST', '/api/webhooks', null, { name: 'standard', url: `${receiver.url}/standard`, entityKinds: ['template'], secret }),
        201,
      );
      const names = ['sw_one', 'sw_two', 'sw_three'];
      for (const name of names) ok(await call('POST', '/api/templates', null, { name, template: name }), 201);
      await until(() => receiver.deliveries.filter((d) => d.path === '/standard').length >= names.length, 'three deliveries');
      const library = new Webhook(secret);
      for (const delivery of receiver.deliveries.filter((d) => d.path === '/standard')) {
        const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
        expect(() => library.verify(delivery.body, headers)).not.toThrow();
        const line =
          'expected="v1,$(printf \'%s.%s.%s\' "$WEBHOOK_ID" "$WEBHOOK_TIMESTAMP" "$BODY" | openssl dgst -sha256 -mac HMAC ' +
          '-macopt hexkey:"$(printf %s "${SECRET#whsec_}" | base64 -d | od -An -v -tx1 | tr -d \' \\n\')" -binary | base64)"; ' +
          'case " $WEBHOOK_SIGNATURE " in *" $expected "*) echo valid ;; *) echo forged ;; esac';
        const { stdout } = await promisify(execFile)('bash', ['-c', line], {
          env: {
            PATH: process.env.PATH,
            SECRET: secret,
            BODY: delivery.body,
            WEBHOOK_ID: headers['webhook-id'],
            WEBHOOK_TIMESTAMP: headers['webhook-timestamp'],
            WEBHOOK_SIGNATURE: headers['webhook-signature'],
          },
        });
        expect(stdout.trim()).toBe('valid');
      }
      const malformed = await call('POST', '/api/webhooks', null, {
        name: 'bad',
        url: `${receiver.url}/bad`,
        secret: 'whsec_' + '!'.repeat(40),
      });
      expect(malformed.statusCode).toBe(400);
      expect((await call('DELETE', `/api/webhooks/${webhook.id}`)).statusCode).toBe(204);
    });

    it('filters by a variable nested in a filter literal on every run, not only the first (graphql-jit dropped it)', async () => {
      const query = 'query($id: String) { auditLog(filter: {entityId: $id}) { entityId } }';
      for (const id of [unownedSecret, paymentsTemplate, unownedSecret]) {
        const graph = await gql(query, 'alice', { id });
        const entries = (graph.data?.auditLog ?? []) as { entityId: string }[];
        expect(entries.length).toBeGreaterThan(0);
        expect(new Set(entries.map((entry) => entry.entityId))).toEqual(new Set([id]));
      }
    });

    it('answers an as-of position beyond the head with 400, and the history of an unknown id with 404', async () => {
      const head = (await h.services.store.lastPosition()) ?? 0n;
      const ahead = await call('GET', `/api/secrets/${unownedSecret}?at=${head + 1000n}`);
      expect(ahead.statusCode).toBe(400);
      expect(ahead.json<Problem>()).toMatchObject({ code: 'POSITION_AHEAD', errors: [{ field: 'at' }] });
      const graph = await gql('query($id: UUID!, $at: String) { secret(id: $id, at: $at) { id } }', null, {
        id: unownedSecret,
        at: String(head + 1000n),
      });
      expect(graph.errors?.[0]?.extensions?.code).toBe('POSITION_AHEAD');
      const client = await mcp('bob');
      const unknown = await client.callTool({
        name: 'history',
        arguments: { kind: 'template', id: '00000000-0000-4000-8000-000000000000' },
      });
      expect(JSON.parse(textOf(unknown))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    });

    it('answers headers over the limit with a 431 problem and Connection: close, so the next request on the client works', async () => {
      const { port } = new URL(baseUrl);
      const raw = await new Promise<{ text: string; ended: boolean }>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve({ text, ended: true }));
        socket.on('error', reject);
        socket.write(`GET /api/templates?q=${'x'.repeat(17 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      });
      expect(raw.ended).toBe(true);
      expect(raw.text).toMatch(/^HTTP\/1\.1 431 /);
      expect(raw.text.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(raw.text.slice(raw.text.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
      // A kept-alive client: the oversized request, then an innocent one, on one agent.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = (path: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port: Number(port), path, agent }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
      expect(await get(`/healthz?pad=${'y'.repeat(17 * 1024)}`)).toBe(431);
      expect(await get('/healthz')).toBe(200);
      agent.destroy();
    });
  });
}
