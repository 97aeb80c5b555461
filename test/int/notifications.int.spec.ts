import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signBackstageToken } from '../support/idp/backstage.js';
import { createProvider } from '../support/idp/sso-harness.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * Notifications (docs/contract.md §11). Slack cannot be reached from here: a local server speaking
 * Slack's Web API contract (`users.lookupByEmail`, `chat.postMessage`, bearer token, `ok`/`error`
 * answers) stands in for it, and a plain receiver for an incoming webhook. The client code is the
 * shipped one; only the address differs (`apiUrl`).
 */

interface Posted {
  readonly channel: string;
  readonly text: string;
}

const BOT_TOKEN = 'xoxb-test-0123456789';

/** A stand-in for Slack's Web API: knows people by e-mail, records messages, refuses a wrong token. */
async function startSlackContractServer(people: Record<string, string>) {
  const messages: Posted[] = [];
  const hooks: string[] = [];
  let failNext = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://slack.test');
      const answer = (status: number, body: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/hook') {
        hooks.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string }).text);
        response.writeHead(200).end('ok');
        return;
      }
      if (request.headers.authorization !== `Bearer ${BOT_TOKEN}`) return answer(200, { ok: false, error: 'invalid_auth' });
      if (url.pathname === '/api/users.lookupByEmail') {
        const id = people[url.searchParams.get('email') ?? ''];
        return answer(200, id ? { ok: true, user: { id } } : { ok: false, error: 'users_not_found' });
      }
      if (url.pathname === '/api/chat.postMessage' && request.method === 'POST') {
        if (failNext > 0) {
          failNext -= 1;
          return answer(429, { ok: false, error: 'ratelimited' });
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Posted;
        messages.push({ channel: body.channel, text: body.text });
        return answer(200, { ok: true, channel: body.channel, ts: String(Date.now() / 1000) });
      }
      answer(404, { ok: false, error: 'unknown_method' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    messages,
    hooks,
    failNextPosts(count: number) {
      failNext = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const until = (ready: () => boolean, what: string): Promise<void> =>
  vi.waitFor(
    () => {
      if (!ready()) throw new Error(`still waiting for ${what}`);
    },
    { timeout: 20_000, interval: 25 },
  );

const PORTAL_SECRET = 'portal-shared-secret-0123456789abcdef';

for (const target of databaseTargets()) {
  describe(`notifications on ${target.name}, to a local server speaking Slack's Web API contract`, () => {
    let h: HttpHarness;
    let slack: Awaited<ReturnType<typeof startSlackContractServer>>;
    const tokens = new Map<string, string>();
    const ids = new Map<string, string>();
    let templateId: string;

    /** A person: a portal token creates them on first use; the admin gives them an e-mail. */
    const person = async (name: string, email: string | null): Promise<void> => {
      const token = await signBackstageToken(
        new TextEncoder().encode(PORTAL_SECRET),
        'HS256',
        undefined,
        { sub: `user:default/${name}` },
        Math.floor(Date.now() / 1000),
      );
      const me = await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
      expect(me.statusCode, me.body).toBe(200);
      const id = me.json<{ id: string }>().id;
      if (email !== null) {
        const patched = await h.inject({ method: 'PATCH', url: `/api/users/${id}`, payload: { email, displayName: name } });
        expect(patched.statusCode, patched.body).toBe(200);
      }
      tokens.set(name, token);
      ids.set(name, id);
    };
    const as = (name: string) => ({ authorization: `Bearer ${tokens.get(name) ?? ''}` });
    const act = async (who: string, id: string, action: string, payload: Record<string, unknown> = {}) => {
      const response = await h.inject({
        method: 'POST',
        url: `/api/resources/${id}/actions/${action}`,
        payload,
        ...(who === 'admin' ? {} : { headers: as(who) }),
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    const request = async (name: string): Promise<string> => {
      const response = await h.inject({ method: 'POST', url: '/api/resources', payload: { name, templateId }, headers: as('bob') });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string }>().id;
    };
    const messagesTo = (channel: string) => slack.messages.filter((message) => message.channel === channel).map((message) => message.text);

    beforeAll(async () => {
      slack = await startSlackContractServer({ 'lena@example.com': 'U0LENA', 'bob@example.com': 'U0BOB', 'omar@example.com': 'U0OMAR' });
      h = await openHttpApp(target, {
        env: {
          SECRET_KEY: randomBytes(32).toString('base64'),
          WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.0/8',
          WEBHOOK_RETRY_BASE_MS: '50',
          WEBHOOK_RETRY_MAX_MS: '100',
          WEBHOOK_MAX_ATTEMPTS: '3',
        },
        webhookPollIntervalMs: 30,
      });
      await createProvider(h, { name: 'Portal', type: 'backstage', configuration: { privateKey: PORTAL_SECRET } });
      await person('lena', 'lena@example.com');
      await person('omar', 'omar@example.com');
      await person('bob', 'bob@example.com');
      await person('nina', null); // a member Slack cannot find: left out, the others still told
      const team = await h.inject({
        method: 'POST',
        url: '/api/teams',
        payload: { name: 'notify payments', leadIds: [ids.get('lena')], memberIds: [ids.get('omar'), ids.get('bob'), ids.get('nina')] },
      });
      expect(team.statusCode, team.body).toBe(201);
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'notify postgres', template: 'notify_postgres', abstract: true, ownerId: team.json<{ id: string }>().id },
      });
      expect(template.statusCode, template.body).toBe(201);
      templateId = template.json<{ id: string }>().id;
      for (const [name, provider, configuration] of [
        ['chat', 'slack', { botToken: BOT_TOKEN, apiUrl: `${slack.url}/api` }],
        ['hook', 'incoming_webhook', { webhookUrl: `${slack.url}/hook` }],
      ] as const) {
        const created = await h.inject({
          method: 'POST',
          url: '/api/integrations',
          payload: { name: `notify ${name}`, integrationType: 'notification', integrationProvider: provider, configuration },
        });
        expect(created.statusCode, created.body).toBe(201);
        expect(JSON.stringify(created.json())).not.toContain(provider === 'slack' ? BOT_TOKEN : `${slack.url}/hook`);
      }
    });
    afterAll(async () => {
      await h.close();
      await slack.close();
    });

    it('tells the template team’s leads that a request waits, and the requester that it was approved or rejected, with the reason', async () => {
      const rejected = await request('notify-orders-db');
      await until(() => messagesTo('U0LENA').length === 1, 'the lead told of the request');
      expect(messagesTo('U0LENA')[0]).toMatch(
        /^Request notify-orders-db \(template notify postgres\) by bob waits for approval by the leads of team notify payments: http.*\/resources\/.*\/show$/,
      );
      expect(messagesTo('U0OMAR')).toEqual([]); // a member, not a lead
      await until(() => slack.hooks.length === 1, 'the incoming webhook told');
      expect(slack.hooks[0]).toMatch(/^For lena: Request notify-orders-db/);

      await act('lena', rejected, 'reject', { reason: 'too big for a test' });
      await until(() => messagesTo('U0BOB').length === 1, 'the requester told of the rejection');
      expect(messagesTo('U0BOB')[0]).toMatch(/^Your request notify-orders-db was rejected by lena: "too big for a test" http/);

      const approved = await request('notify-cache');
      await until(() => messagesTo('U0LENA').length === 2, 'the lead told of the second request');
      await act('lena', approved, 'approve');
      await until(() => messagesTo('U0BOB').length === 2, 'the requester told of the approval');
      expect(messagesTo('U0BOB')[1]).toMatch(/^Your request notify-cache was approved by lena http/);
      // The two integrations deliver independently: the webhook's copy may land after the DM.
      await until(() => slack.hooks.length === 4, 'the incoming webhook told of the approval');
      expect(slack.hooks[3]).toMatch(/^For bob: Your request notify-cache was approved/);
    });

    it('tells the owning team that a run failed, retrying while Slack refuses, and leaves out whom Slack cannot find', async () => {
      const id = await request('notify-queue');
      await act('lena', id, 'approve');
      await act('bob', id, 'execute');
      await act('admin', id, 'start');
      const before = slack.messages.length;
      slack.failNextPosts(2); // rate-limited twice: the third attempt goes through
      await act('admin', id, 'fail', { error: 'terraform apply: quota exceeded' });
      await until(() => messagesTo('U0OMAR').length === 1, 'the team told of the failure');
      const failures = slack.messages.slice(before).filter((message) => message.text.startsWith('A run of'));
      expect(failures.map((message) => message.channel).sort()).toEqual(['U0BOB', 'U0LENA', 'U0OMAR']);
      expect(failures[0]?.text).toMatch(/^A run of notify-queue \(template notify postgres\) failed: terraform apply: quota exceeded http/);
      await until(() => slack.hooks.some((text) => text.includes('A run of notify-queue')), 'the incoming webhook told of the failure');
      expect(slack.hooks.find((text) => text.includes('A run of notify-queue'))).toMatch(/^For bob, lena, nina, omar: A run of/);
    });

    it('passes over a notice Slack keeps refusing, keeps its error in the delivery state, and tells the next one', async () => {
      const integrations = (await h.inject({ method: 'GET', url: '/api/integrations?filter={"integrationProvider":"slack"}' })).json<
        { id: string }[]
      >();
      const slackId = integrations[0]?.id ?? '';
      const before = messagesTo('U0LENA').length;
      slack.failNextPosts(3); // every attempt at the next notice (WEBHOOK_MAX_ATTEMPTS is 3)
      await request('notify-lost');
      const delivery = async () =>
        (await h.inject({ method: 'GET', url: `/api/integrations/${slackId}/delivery` })).json<{
          state: string;
          attempts: number;
          lastError: string | null;
        }>();
      await vi.waitFor(
        async () =>
          expect(await delivery()).toMatchObject({ state: 'active', attempts: 0, lastError: 'Slack chat.postMessage answered 429' }),
        { timeout: 20_000, interval: 25 },
      );
      await request('notify-next');
      await until(() => messagesTo('U0LENA').length === before + 1, 'the next request told');
      expect(messagesTo('U0LENA').at(-1)).toContain('notify-next');
      expect(messagesTo('U0LENA').some((text) => text.includes('notify-lost'))).toBe(false);
      expect(
        slack.hooks.some((text) => text.includes('notify-lost')),
        'the other integration told of it',
      ).toBe(true);
      expect((await h.inject({ method: 'GET', url: `/api/integrations/${templateId}/delivery` })).statusCode).toBe(404);
    });

    it('refuses a notification integration without its credential, or at an address that is not http(s)', async () => {
      const missing = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: { name: 'notify bad', integrationType: 'notification', integrationProvider: 'slack', configuration: {} },
      });
      expect(missing.statusCode).toBe(400);
      expect(missing.body).toContain('botToken');
      const badUrl = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'notify bad hook',
          integrationType: 'notification',
          integrationProvider: 'incoming_webhook',
          configuration: { webhookUrl: 'ftp://chat.example.com/hook' },
        },
      });
      expect(badUrl.statusCode).toBe(400);
      expect(badUrl.body).toContain('webhookUrl');
    });

    it('never sends a stored bot token to a new address: moving apiUrl needs the token again', async () => {
      const created = await h.inject({
        method: 'POST',
        url: '/api/integrations',
        payload: {
          name: 'notify moved',
          integrationType: 'notification',
          integrationProvider: 'slack',
          configuration: { botToken: BOT_TOKEN, apiUrl: `${slack.url}/api` },
          status: 'disabled',
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json<{ id: string }>().id;
      const patch = (configuration: Record<string, unknown>) =>
        h.inject({ method: 'PATCH', url: `/api/integrations/${id}`, payload: { configuration } });
      const moved = await patch({ botToken: '********', apiUrl: 'https://collector.example.com/api' });
      expect(moved.statusCode).toBe(400);
      expect(moved.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
        {
          field: 'configuration.botToken',
          message: 'must be sent again (not ********) when configuration.apiUrl changes: a stored secret never goes to a new address',
        },
      ]);
      expect((await patch({ botToken: '********', apiUrl: `${slack.url}/api`, channel: '#platform' })).statusCode).toBe(200);
      expect((await patch({ botToken: 'xoxb-another-token', apiUrl: 'https://collector.example.com/api' })).statusCode).toBe(200);
    });
  });
}
