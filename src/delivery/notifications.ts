import type { GuardedFetch } from '../auth/sso/guarded-fetch.js';
import { loadAggregate } from '../commands/handler.js';
import { integrationAggregate } from '../commands/integration.js';
import { integrationConfigurationSchemas } from '../model/integration.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import type { RecordedEvent } from '../events/store/port.js';
import type { Db } from '../storage/kysely.js';
import { actorUserId } from '../projections/metadata.js';
import { sendToIncomingWebhook, sendToSlack, type ChatDeps, type ChatMessage, type SlackSettings } from './chat.js';
import { startCursorLoop, type CursorLoopDeps, type DeliveryChannel, type RunningDelivery } from './cursor-loop.js';
import { mayNotify, noticeOf, type Notice } from './notice.js';
import { contextOf, MAX_RECIPIENTS, readSideReached, type NoticeContext } from './recipients.js';
import { sendError } from './webhooks.js';

/**
 * Notifications (docs/contract.md §11), one channel of the cursor loop (./cursor-loop.ts): each
 * enabled `notification` integration is a target, given the notices of the resource events after
 * its creation (./notice.ts), told to the people ./recipients.ts finds, through its provider
 * (./chat.ts). A message that still fails after the last attempt is logged and passed over: a chat
 * message hours late helps nobody, and the next ones must not wait behind it.
 */

/** What the notifiers need: the cursor loop's settings, and how to reach chat services. */
export interface NotificationDeps extends CursorLoopDeps {
  readonly codec: EventCodec;
  /** The read side, for the read rule recipients are held to. */
  readonly db: Db;
  /** The fetch behind the private-address guard (with the operator's allowed ranges). */
  readonly fetch: GuardedFetch;
  /** The web UI's address, for links to the resource. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
}

interface IntegrationRow {
  readonly id: string;
  readonly revision: number;
  readonly integration_provider: string;
}

type Settings =
  { readonly provider: 'slack'; readonly slack: SlackSettings } | { readonly provider: 'incoming_webhook'; readonly url: string };

/** The message of a notice, in plain words with a link to the resource. */
export function messageOf(notice: Notice, context: NoticeContext, baseUrl: string): string {
  const { resource, requester, actor } = context;
  const link = `${baseUrl.replace(/\/+$/, '')}/resources/${resource.id}/show`;
  const by = requester ? ` by ${requester.name}` : '';
  const template = resource.templateName ? ` (template ${resource.templateName})` : '';
  switch (notice.rule) {
    case 'approval_requested':
      return `Request ${resource.name}${template}${by} waits for approval by ${context.audience}: ${link}`;
    case 'approved':
    case 'rejected': {
      const reason = notice.reason ? `: "${notice.reason}"` : '';
      return `Your request ${resource.name} was ${notice.rule}${actor ? ` by ${actor.name}` : ''}${reason} ${link}`;
    }
    case 'run_failed':
      return `A run of ${resource.name}${template} failed${notice.error ? `: ${notice.error}` : ''} ${link}`;
  }
}

/** Starts notifying through every enabled notification integration. */
export function startNotifications(deps: NotificationDeps): RunningDelivery {
  const { pool, store, codec, log } = deps;
  const chat: ChatDeps = { fetch: deps.fetch, timeoutMs: deps.timeoutMs, log };
  const commands = { store, codec, newId: () => '' };
  /** Each integration's settings with its secrets in clear (only its stream holds them), by the revision read. */
  const settings = new Map<string, { revision: number; settings: Settings | undefined }>();
  /** The event `matches` decoded last, so `send` does not decrypt it again. */
  let lastDecoded: { eventId: string; decoded: DecodedEvent; notice: Notice | undefined } | undefined;

  const decode = (recorded: RecordedEvent): { decoded: DecodedEvent; notice: Notice | undefined } => {
    if (lastDecoded?.eventId !== recorded.eventId) {
      const decoded = codec.decode(recorded);
      lastDecoded = { eventId: recorded.eventId, decoded, notice: noticeOf(decoded) };
    }
    return lastDecoded;
  };

  async function settingsOf(integration: IntegrationRow): Promise<Settings | undefined> {
    const cached = settings.get(integration.id);
    if (cached?.revision === integration.revision) return cached.settings;
    const { state } = await loadAggregate(commands, integrationAggregate, integration.id);
    let found: Settings | undefined;
    if (state.status === 'active') {
      const { configuration } = state.fields;
      if (state.fields.integrationProvider === 'slack')
        found = { provider: 'slack', slack: integrationConfigurationSchemas.slack.parse(configuration) };
      if (state.fields.integrationProvider === 'incoming_webhook')
        found = { provider: 'incoming_webhook', url: String(configuration.webhookUrl) };
    }
    settings.set(integration.id, { revision: integration.revision, settings: found });
    return found;
  }

  const channel: DeliveryChannel<IntegrationRow> = {
    name: 'notification',
    exhausted: 'skip',
    async targets() {
      const { rows } = await pool.query<IntegrationRow>(
        `SELECT id::text AS id, revision, integration_provider FROM integrations
          WHERE integration_type = 'notification' AND deleted_at IS NULL AND status = 'enabled'`,
      );
      return rows;
    },
    async startPosition(integration) {
      const [created] = await store.readStream(`integration-${integration.id}`);
      return created?.position;
    },
    async matches(_integration, recorded) {
      if (!mayNotify(recorded.streamId, recorded.type) || decode(recorded).notice === undefined) return false;
      // Recipients come from the read side: it must have applied this event first.
      return (await readSideReached(pool, recorded.position)) || 'later';
    },
    async send(integration, recorded) {
      const { decoded, notice } = decode(recorded);
      if (!notice) return null;
      const context = await contextOf(pool, deps.db, notice, actorUserId(decoded.metadata));
      if (!context) return null; // the resource is gone from the read side: nobody to tell about it
      if (context.recipients.length === MAX_RECIPIENTS)
        log.warn({ resourceId: notice.resourceId, rule: notice.rule }, `notification limited to its first ${MAX_RECIPIENTS} recipients`);
      const message: ChatMessage = { text: messageOf(notice, context, deps.baseUrl), recipients: context.recipients };
      const found = await settingsOf(integration);
      if (!found) return `integration ${integration.id} has no notification settings`;
      try {
        if (found.provider === 'slack') await sendToSlack(chat, found.slack, message);
        else await sendToIncomingWebhook(chat, found.url, message);
        log.info(
          { integrationId: integration.id, resourceId: notice.resourceId, rule: notice.rule, recipients: context.recipients.length },
          'notification sent',
        );
        return null;
      } catch (error) {
        return sendError(error, deps.timeoutMs);
      }
    },
  };
  return startCursorLoop(deps, channel);
}
