import { randomUUID } from 'node:crypto';
import { PrivateAddressRefused, type GuardedFetch } from '../auth/sso/guarded-fetch.js';
import { allEventDefinitions } from '../events/catalog.js';
import type { DecodedEvent, EventCodec } from '../events/codec.js';
import type { EventStore, RecordedEvent } from '../events/store/port.js';
import type { Logger } from '../log.js';
import { declarationOf } from '../model/catalog.js';
import { WEBHOOK_KINDS } from '../model/webhook.js';
import type { SqlPool } from '../storage/pool.js';
import { cloudEventOf } from './cloud-event.js';
import { signatureHeaders } from './signature.js';

/**
 * Webhook delivery (docs/contract.md §9). Each enabled webhook has a cursor (`webhook_cursors`):
 * the position of the last event it was given or passed over. A round claims the cursor's lease,
 * reads the log after it (gap-free: an event is never passed before an earlier one can still
 * commit), posts each matching event in log order and moves the cursor after each answer in 2xx.
 * Order per entity follows from order over the log; at least once follows from moving the cursor
 * only after the answer (a crash between the two sends the event again). The lease keeps two
 * replicas from delivering one webhook at once; a replica that lost it stops at its next write.
 *
 * A failed attempt (no 2xx, a timeout, a refused address) waits `retryBaseMs` doubled per attempt
 * (up to `retryMaxMs`) and tries the same event again; after `maxAttempts` the webhook is dead at
 * that event until someone re-drives it (./cursors.ts): later events are never sent before it.
 */

/** What the deliverers need. */
export interface WebhookDeliveryDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  /** The fetch behind the private-address guard (with the operator's allowed ranges). */
  readonly fetch: GuardedFetch;
  /** CloudEvents `source`: the service's base URL. */
  readonly source: string;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How often idle deliverers look for new events (default 500 ms). */
  readonly pollIntervalMs?: number;
  /** How long a claimed cursor stays this process's without a write (default 30 s). */
  readonly leaseMs?: number;
  /** Events read per round (default 100). */
  readonly batchSize?: number;
}

/** A running delivery: `stop` ends it after the round in flight. */
export interface WebhookDelivery {
  stop(): Promise<void>;
}

interface WebhookRow {
  readonly id: string;
  /** Moves with every change, the secret's included: the cached secrets are read again after it. */
  readonly revision: number;
  readonly url: string;
  readonly event_types: readonly string[];
  readonly entity_kinds: readonly string[];
  readonly owner_ids: readonly string[];
}

interface ClaimRow {
  readonly position: string;
  readonly attempts: number;
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
  const { pool, store, codec, log } = deps;
  const me = randomUUID();
  const pollIntervalMs = deps.pollIntervalMs ?? 500;
  const leaseSeconds = (deps.leaseMs ?? 30_000) / 1000;
  const batchSize = deps.batchSize ?? 100;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /**
   * How far each webhook's cursor was when this process last held it: a webhook already at the
   * log's head is not claimed (a claim is a write, and an idle service should write nothing).
   */
  const known = new Map<string, bigint>();
  let round: Promise<void> | undefined;

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

  /** Whether the webhook wants the event; `later` when that cannot be told yet (the read side behind it). */
  async function matches(webhook: WebhookRow, recorded: RecordedEvent): Promise<boolean | 'later'> {
    const entity = entityOf(recorded.streamId);
    if (!entity) return false;
    if (webhook.entity_kinds.length > 0 && !webhook.entity_kinds.includes(entity.kind)) return false;
    if (webhook.event_types.length > 0 && !webhook.event_types.includes(recorded.type)) return false;
    return webhook.owner_ids.length === 0 || ownedByOneOf(webhook.owner_ids, entity.kind, entity.id, recorded.position);
  }

  /** Posts one event; answers the error when it was not taken (null when it was). */
  async function post(webhook: WebhookRow, decoded: DecodedEvent, keys: readonly string[]): Promise<string | null> {
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
      if (error instanceof PrivateAddressRefused) return `refused: ${error.message} (WEBHOOK_ALLOWED_PRIVATE_RANGES allows ranges)`;
      if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${deps.timeoutMs} ms`;
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** The cursor at the webhook's own creation: it is given what happens after it exists. */
  async function startCursor(webhookId: string): Promise<void> {
    const [created] = await store.readStream(`webhook-${webhookId}`);
    if (!created) return;
    await pool.query('INSERT INTO webhook_cursors (webhook_id, position) VALUES ($1, $2) ON CONFLICT (webhook_id) DO NOTHING', [
      webhookId,
      String(created.position),
    ]);
  }

  /** Claims the webhook's cursor when it is free, due and alive; undefined otherwise. */
  async function claim(webhookId: string): Promise<ClaimRow | undefined> {
    const { rows } = await pool.query<ClaimRow>(
      `UPDATE webhook_cursors SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), updated_at = now()
        WHERE webhook_id = $1 AND state = 'active' AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
          AND (next_attempt_at IS NULL OR next_attempt_at <= now())
        RETURNING position::text AS position, attempts`,
      [webhookId, me, leaseSeconds],
    );
    return rows[0];
  }

  /** Moves the cursor (and renews the lease); false when the lease was lost meanwhile. */
  async function advance(webhookId: string, position: bigint, delivered: boolean): Promise<boolean> {
    const { rows } = await pool.query(
      `UPDATE webhook_cursors SET position = $3, attempts = 0, next_attempt_at = NULL, last_error = NULL, failed_event_id = NULL,
         delivered = delivered + $4, last_delivered_at = CASE WHEN $4 > 0 THEN now() ELSE last_delivered_at END,
         lease_until = now() + make_interval(secs => $5), updated_at = now()
        WHERE webhook_id = $1 AND lease_owner = $2 RETURNING webhook_id`,
      [webhookId, me, String(position), delivered ? 1 : 0, leaseSeconds],
    );
    return rows.length > 0;
  }

  /** Records a failed attempt at `eventId`: a later retry, or the dead state after the last attempt. */
  async function failed(webhookId: string, position: bigint, attempts: number, error: string, eventId: string): Promise<void> {
    const dead = attempts >= deps.maxAttempts;
    const waitMs = Math.min(deps.retryBaseMs * 2 ** (attempts - 1), deps.retryMaxMs);
    await pool.query(
      `UPDATE webhook_cursors SET position = $3, attempts = $4, last_error = $5, failed_event_id = $6, state = $7,
         next_attempt_at = CASE WHEN $7 = 'dead' THEN NULL ELSE now() + make_interval(secs => $8) END,
         lease_owner = NULL, lease_until = NULL, updated_at = now()
        WHERE webhook_id = $1 AND lease_owner = $2`,
      [webhookId, me, String(position), attempts, error.slice(0, 2000), eventId, dead ? 'dead' : 'active', waitMs / 1000],
    );
    if (dead) log.warn({ webhookId, eventId, attempts, error }, 'webhook dead after its last attempt: re-drive it once the target works');
    else log.info({ webhookId, eventId, attempts, retryInMs: waitMs, error }, 'webhook delivery failed; retrying');
  }

  /** One round for one webhook: as many events as one read brings, until one fails. */
  async function deliver(webhook: WebhookRow, head: bigint | undefined): Promise<void> {
    const at = known.get(webhook.id);
    if (at !== undefined && (head === undefined || at >= head)) return;
    let claimed = await claim(webhook.id);
    if (!claimed) {
      await startCursor(webhook.id);
      claimed = await claim(webhook.id);
      if (!claimed) return;
    }
    let position = BigInt(claimed.position);
    let passed = position;
    known.delete(webhook.id); // unknown until this round's end says where it stopped
    let keys: string[] | undefined;
    for (const recorded of await store.readAll({ after: position, limit: batchSize })) {
      if (stopped) break;
      const wanted = await matches(webhook, recorded);
      if (wanted === 'later') break; // the next round asks again
      if (!wanted) {
        passed = recorded.position;
        continue;
      }
      keys ??= await signingKeys(webhook);
      const error = await post(webhook, codec.decode(recorded), keys);
      if (error !== null) {
        await failed(webhook.id, passed, claimed.attempts + 1, error, recorded.eventId);
        return;
      }
      position = passed = recorded.position;
      if (!(await advance(webhook.id, position, true))) return; // another replica holds it now
      claimed = { ...claimed, attempts: 0 };
    }
    if (passed !== position && !(await advance(webhook.id, passed, false))) return;
    known.set(webhook.id, passed);
    // Let go, so that any replica may take the next round.
    await pool.query('UPDATE webhook_cursors SET lease_owner = NULL, lease_until = NULL WHERE webhook_id = $1 AND lease_owner = $2', [
      webhook.id,
      me,
    ]);
  }

  async function runRound(): Promise<void> {
    const { rows } = await pool.query<WebhookRow>(
      "SELECT id, revision, url, event_types, entity_kinds, owner_ids FROM webhooks WHERE deleted_at IS NULL AND status = 'enabled'",
    );
    if (rows.length === 0) return;
    const head = await store.headPosition();
    await Promise.all(
      rows.map((webhook) =>
        deliver(webhook, head).catch((error: unknown) =>
          log.warn({ err: error, webhookId: webhook.id }, 'webhook round failed; next round retries'),
        ),
      ),
    );
  }

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = runRound()
        .catch((error: unknown) => log.warn({ err: error }, 'webhook delivery round failed; retrying'))
        .finally(schedule);
    }, pollIntervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
