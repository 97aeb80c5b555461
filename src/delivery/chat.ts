import type { GuardedFetch } from '../auth/sso/guarded-fetch.js';
import type { Logger } from '../log.js';
import type { Person } from './recipients.js';

/**
 * The chat clients notifications are sent with (docs/contract.md §11). Slack: its Web API with a
 * bot token (`users.lookupByEmail` to find each recipient, `chat.postMessage` to a channel or to each
 * recipient directly). An incoming webhook: one `{"text": …}` post naming the recipients. Each
 * answers the error when the message was not taken (null when it was): the cursor loop retries.
 */

/** Slack's Web API, unless an integration names another (a proxy, a test server). */
export const SLACK_API_URL = 'https://slack.com/api';

/** What a client needs to send. */
export interface ChatDeps {
  readonly fetch: GuardedFetch;
  readonly timeoutMs: number;
  readonly log: Logger;
}

/** One message: its text, and the people it is for. */
export interface ChatMessage {
  readonly text: string;
  readonly recipients: readonly Person[];
}

interface SlackAnswer {
  readonly ok?: boolean;
  readonly error?: string;
  readonly user?: { readonly id?: string };
}

/** The Slack settings of a notification integration, with the bot token in clear. */
export interface SlackSettings {
  readonly botToken: string;
  readonly apiUrl?: string;
  readonly channel?: string;
}

/** Calls one Slack Web API method; `ok: false` answers come back as they are (the caller decides). */
interface SlackRequest {
  readonly method: 'GET' | 'POST';
  readonly body?: string;
}

async function slackCall(deps: ChatDeps, settings: SlackSettings, method: string, request: SlackRequest): Promise<SlackAnswer> {
  const base = (settings.apiUrl ?? SLACK_API_URL).replace(/\/+$/, '');
  const response = await deps.fetch(`${base}/${method}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${settings.botToken}`,
      ...(request.body !== undefined && { 'content-type': 'application/json; charset=utf-8' }),
    },
    ...(request.body !== undefined && { body: request.body }),
    signal: AbortSignal.timeout(deps.timeoutMs),
  });
  // Slack answers 429 with Retry-After when rate-limited; anything but JSON is a failure to retry.
  if (!response.ok) throw new Error(`Slack ${method} answered ${response.status}`);
  return (await response.json()) as SlackAnswer;
}

/** A person's Slack user id by e-mail; undefined when Slack knows no one by it. */
async function slackUserOf(deps: ChatDeps, settings: SlackSettings, email: string): Promise<string | undefined> {
  const answer = await slackCall(deps, settings, `users.lookupByEmail?email=${encodeURIComponent(email)}`, { method: 'GET' });
  if (answer.ok === true && answer.user?.id) return answer.user.id;
  if (answer.error === 'users_not_found') return undefined;
  throw new Error(`Slack users.lookupByEmail: ${answer.error ?? 'no user id in the answer'}`);
}

async function slackPost(deps: ChatDeps, settings: SlackSettings, channel: string, text: string): Promise<void> {
  const answer = await slackCall(deps, settings, 'chat.postMessage', {
    method: 'POST',
    body: JSON.stringify({ channel, text, unfurl_links: false }),
  });
  if (answer.ok !== true) throw new Error(`Slack chat.postMessage: ${answer.error ?? 'not ok'}`);
}

/** A person as a message names them: a Slack mention when Slack knows them, else their name. */
const named = (person: Person, slackId: string | undefined): string => (slackId ? `<@${slackId}>` : person.name);

/**
 * Sends a message through Slack: into the integration's channel mentioning every recipient, or as a
 * direct message to each recipient Slack knows by e-mail (one it does not know is logged and left out).
 */
export async function sendToSlack(deps: ChatDeps, settings: SlackSettings, message: ChatMessage): Promise<void> {
  const found = await Promise.all(
    message.recipients.map(async (person) => ({
      person,
      slackId: person.email ? await slackUserOf(deps, settings, person.email) : undefined,
    })),
  );
  for (const { person, slackId } of found)
    if (slackId === undefined) deps.log.info({ userId: person.id }, 'notification recipient not found in Slack by e-mail; left out');
  if (settings.channel !== undefined) {
    const mentions = found.map(({ person, slackId }) => named(person, slackId)).join(', ');
    await slackPost(deps, settings, settings.channel, mentions === '' ? message.text : `${mentions}: ${message.text}`);
    return;
  }
  for (const { slackId } of found) if (slackId !== undefined) await slackPost(deps, settings, slackId, message.text);
}

/** Sends a message to an incoming webhook (Slack, Mattermost and others take `{"text": …}`), naming its recipients. */
export async function sendToIncomingWebhook(deps: ChatDeps, webhookUrl: string, message: ChatMessage): Promise<void> {
  const names = message.recipients.map((person) => person.name).join(', ');
  const response = await deps.fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ text: names === '' ? message.text : `For ${names}: ${message.text}` }),
    signal: AbortSignal.timeout(deps.timeoutMs),
  });
  if (!response.ok) throw new Error(`the incoming webhook answered ${response.status}`);
}
