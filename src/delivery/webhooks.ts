import { randomUUID } from 'node:crypto';
import { PrivateAddressRefused, type GuardedFetch } from '../auth/sso/guarded-fetch.js';
import { allEventDefinitions } from '../events/catalog.js';
import type { EventCodec } from '../events/codec.js';
import type { RecordedEvent } from '../events/store/port.js';
import { executeCommand } from '../commands/handler.js';
import { webhookAggregate } from '../commands/webhook.js';
import { declarationOf } from '../model/catalog.js';
import { effectivePermissions, type PermissionResource } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { missingToManage, WEBHOOK_KINDS } from '../model/webhook.js';
import { mayReadEntity, readableRows } from '../read/entity-access.js';
import type { Db } from '../storage/kysely.js';
import { cloudEventOf } from './cloud-event.js';
import { startCursorLoop, type CursorLoopDeps, type DeliveryChannel, type RunningDelivery } from './cursor-loop.js';
import { signatureHeaders } from './signature.js';

/**
 * Webhook delivery (docs/contract.md §9), one channel of the cursor loop (./cursor-loop.ts): each
 * enabled webhook is a target, given the events it asks for (event types, entity kinds, owners) as
 * signed CloudEvents, in log order, at least once. After WEBHOOK_MAX_ATTEMPTS at one event the
 * webhook is dead there until someone re-drives it: later events are never sent before it. Each
 * webhook acts as a user (its creator, or whoever took it over): an event of an entity that user may
 * not read is not sent, and a webhook whose user was deactivated or may no longer manage it is
 * paused (an event saying why) until someone who may takes it over.
 */

/** What the deliverers need: the cursor loop's settings, and how to reach and sign for targets. */
export interface WebhookDeliveryDeps extends CursorLoopDeps {
  readonly codec: EventCodec;
  /** The read side, for the per-entity read rule of the user a webhook acts as. */
  readonly db: Db;
  /** The fetch behind the private-address guard (with the operator's allowed ranges). */
  readonly fetch: GuardedFetch;
  /** CloudEvents `source`: the service's base URL. */
  readonly source: string;
  readonly timeoutMs: number;
}

/** A running delivery: `stop` ends it after the round in flight. */
export type WebhookDelivery = RunningDelivery;

interface WebhookRow {
  readonly id: string;
  /** Moves with every change, the secret's included: the cached secrets are read again after it. */
  readonly revision: number;
  readonly url: string;
  readonly event_types: readonly string[];
  readonly entity_kinds: readonly string[];
  readonly owner_ids: readonly string[];
}

/** A webhook with the user its deliveries act as, as `targets` reads them. */
interface ActingRow extends WebhookRow {
  readonly acting_id: string | null;
  readonly acting_name: string | null;
  readonly roles: readonly string[] | null;
  readonly grants: readonly string[] | null;
  readonly deactivated: boolean | null;
}

/** A webhook being served: the user it acts as, whose rights decide what it is sent. */
interface ActingWebhook extends WebhookRow {
  readonly actingAs: Pick<Principal, 'userId' | 'permissions'>;
}

/**
 * Why a webhook may not deliver as its user now (docs/contract.md §9), or undefined when it may:
 * the user is deactivated, unknown, or no longer may manage it.
 */
function pauseReason(row: ActingRow): string | undefined {
  if (row.acting_id === null) return 'it acts as nobody (its creator is unknown): someone who may manage it must take it over';
  if (row.roles === null || row.grants === null) return `the user it acts as (${row.acting_id}) is unknown`;
  const who = `the user it acts as (${row.acting_name ?? row.acting_id})`;
  if (row.deactivated === true) return `${who} was deactivated`;
  const missing = missingToManage(effectivePermissions(row.roles, row.grants), row.entity_kinds);
  return missing === undefined ? undefined : `${who} no longer holds ${missing}`;
}

/** A signing key rotated away keeps signing this long, so receivers can switch keys without losing a delivery. */
export const PREVIOUS_KEY_GRACE_MS = 24 * 60 * 60 * 1000;

const KINDS: ReadonlySet<string> = new Set(WEBHOOK_KINDS);
const DEFINITIONS = new Map(allEventDefinitions.map((definition) => [definition.type, definition]));

/** `template-<id>` → (`template`, id), for the kinds a webhook may ask for; undefined for other streams. */
function entityOf(streamId: string): { kind: string; id: string } | undefined {
  const dash = streamId.indexOf('-');
  const kind = streamId.slice(0, dash);
  return dash > 0 && KINDS.has(kind) ? { kind, id: streamId.slice(dash + 1) } : undefined;
}

/** Starts delivering every enabled webhook's events; one round per webhook at a time. */
export function startWebhookDelivery(deps: WebhookDeliveryDeps): WebhookDelivery {
  const { pool, store, codec } = deps;

  /**
   * Each webhook's secrets as its stream last gave them, by the revision read: the stream (the only
   * place the secret is in clear) is read again only when the webhook changed.
   */
  const secrets = new Map<string, { revision: number; current: string | undefined; previous?: { key: string; until: number } }>();

  /** The keys that sign now: the current secret, and the one before it during its grace period. */
  async function signingKeys(webhook: WebhookRow): Promise<string[]> {
    let known = secrets.get(webhook.id);
    if (known?.revision !== webhook.revision) {
      known = { revision: webhook.revision, ...(await secretsOf(webhook.id)) };
      secrets.set(webhook.id, known);
    }
    const { current, previous } = known;
    if (current === undefined) return [];
    return previous && previous.until > Date.now() ? [current, previous.key] : [current];
  }

  /** The current secret and the previous one, with when it stops signing, from the webhook's stream. */
  async function secretsOf(webhookId: string): Promise<{ current: string | undefined; previous?: { key: string; until: number } }> {
    let current: string | undefined;
    let previous: { key: string; until: number } | undefined;
    for (const recorded of await store.readStream(`webhook-${webhookId}`)) {
      const { event } = codec.decode(recorded);
      const data = event.data as { secret?: unknown; changes?: { secret?: unknown } };
      const secret = event.type === 'WebhookCreated' ? data.secret : data.changes?.secret;
      if (typeof secret !== 'string' || secret === current) continue;
      // When the store recorded the change (its clock, the one receivers share), not the command's.
      if (current !== undefined) previous = { key: current, until: recorded.recordedAt.getTime() + PREVIOUS_KEY_GRACE_MS };
      current = secret;
    }
    return { current, ...(previous && { previous }) };
  }

  /**
   * Whether the entity of an event is owned by one of the teams (a team owns itself), as the read
   * side knows it once its projection has applied the event; `later` while it has not yet (the
   * entity's row may not even exist), so the event is not passed over by mistake.
   */
  async function ownedByOneOf(ownerIds: readonly string[], kind: string, id: string, position: bigint): Promise<boolean | 'later'> {
    if (kind === 'team') return ownerIds.includes(id);
    const entity = declarationOf(kind);
    if (entity === undefined) return false;
    // The table (also its projection's name) comes from a declaration, never from input.
    const { rows } = await pool.query<{ owner_id: string | null; applied: string | null }>(
      `SELECT (SELECT owner_id FROM ${entity.table} WHERE id = $1) AS owner_id,
              (SELECT position::text FROM projection_checkpoints WHERE name = $2) AS applied`,
      [id, entity.table],
    );
    const row = rows[0];
    if (row?.applied == null || BigInt(row.applied) < position) return 'later';
    return row.owner_id != null && ownerIds.includes(row.owner_id);
  }

  /** Pauses a webhook whose user may no longer deliver it: an event of its own, so the audit log and the webhook say why. */
  async function pause(webhook: WebhookRow, reason: string): Promise<void> {
    const commands = { store, codec, newId: randomUUID };
    const context = { actorId: null, correlationId: `webhook-paused-${webhook.id}`, causationId: null, now: new Date() };
    const changes = { pausedReason: reason };
    await executeCommand(commands, webhookAggregate, webhook.id, { type: 'Update', data: { changes } }, context);
    deps.log.warn({ webhookId: webhook.id, reason }, 'webhook paused: someone who may manage it must take it over');
  }

  /**
   * Whether the user a webhook acts as may read the event's entity, as the read side shows it once
   * it has applied the event (a deleted one: as it last stood); `later` while it has not yet.
   */
  async function readableBy(
    actingAs: Pick<Principal, 'userId' | 'permissions'>,
    kind: string,
    id: string,
    position: bigint,
  ): Promise<boolean | 'later'> {
    const table = declarationOf(kind)?.table;
    if (table === undefined) return false;
    if (readableRows(actingAs, kind as PermissionResource, table) !== undefined && !(await applied(table, position))) return 'later';
    return mayReadEntity(deps.db, actingAs, kind, id);
  }

  /** Whether the projection `name` has applied the log up to `position`. */
  async function applied(name: string, position: bigint): Promise<boolean> {
    const { rows } = await pool.query<{ applied: string | null }>(
      'SELECT position::text AS applied FROM projection_checkpoints WHERE name = $1',
      [name],
    );
    const at = rows[0]?.applied;
    return at != null && BigInt(at) >= position;
  }

  const channel: DeliveryChannel<ActingWebhook> = {
    name: 'webhook',
    exhausted: 'dead',
    async targets() {
      const { rows } = await pool.query<ActingRow>(
        `SELECT w.id, w.revision, w.url, w.event_types, w.entity_kinds, w.owner_ids,
                coalesce(w.delivers_as_id, w.creator_id::text) AS acting_id,
                coalesce(nullif(u.display_name, ''), u.identifier) AS acting_name, u.roles, u.grants, u.deactivated
           FROM webhooks w LEFT JOIN users u ON u.id = coalesce(w.delivers_as_id::uuid, w.creator_id)
          WHERE w.deleted_at IS NULL AND w.status = 'enabled' AND w.paused_reason IS NULL`,
      );
      const serving: ActingWebhook[] = [];
      for (const row of rows) {
        const reason = pauseReason(row);
        if (reason !== undefined) await pause(row, reason);
        else if (row.acting_id !== null && row.roles !== null && row.grants !== null)
          serving.push({ ...row, actingAs: { userId: row.acting_id, permissions: effectivePermissions(row.roles, row.grants) } });
      }
      return serving;
    },
    async startPosition(webhook) {
      const [created] = await store.readStream(`webhook-${webhook.id}`);
      return created?.position;
    },
    async matches(webhook, recorded: RecordedEvent) {
      const entity = entityOf(recorded.streamId);
      if (!entity) return false;
      if (webhook.entity_kinds.length > 0 && !webhook.entity_kinds.includes(entity.kind)) return false;
      if (webhook.event_types.length > 0 && !webhook.event_types.includes(recorded.type)) return false;
      const owned = webhook.owner_ids.length === 0 || (await ownedByOneOf(webhook.owner_ids, entity.kind, entity.id, recorded.position));
      if (owned !== true) return owned;
      return readableBy(webhook.actingAs, entity.kind, entity.id, recorded.position);
    },
    async send(webhook, recorded) {
      const keys = await signingKeys(webhook);
      const decoded = codec.decode(recorded);
      const body = JSON.stringify(cloudEventOf(decoded, DEFINITIONS.get(decoded.event.type), deps.source));
      const headers = {
        'content-type': 'application/cloudevents+json; charset=utf-8',
        'user-agent': 'infraledger-webhooks',
        ...signatureHeaders(decoded.eventId, Math.floor(Date.now() / 1000), body, keys),
      };
      try {
        const response = await deps.fetch(webhook.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs) });
        return response.status >= 200 && response.status < 300 ? null : `the target answered ${response.status}`;
      } catch (error) {
        return sendError(error, deps.timeoutMs);
      }
    },
  };
  return startCursorLoop(deps, channel);
}

/** A failed request in words for the delivery state: a refused address says which setting allows it. */
export function sendError(error: unknown, timeoutMs: number): string {
  if (error instanceof PrivateAddressRefused) return `refused: ${error.message} (WEBHOOK_ALLOWED_PRIVATE_RANGES allows ranges)`;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  return error instanceof Error ? error.message : String(error);
}
