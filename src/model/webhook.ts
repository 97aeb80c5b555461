import { z } from 'zod';
import { canonicalUuid } from '../validation.js';
import type { EntityDeclaration } from './entity.js';
import { CATALOG_KINDS, type CatalogKind } from './catalog-kinds.js';
import { allows, type Permission, type PermissionResource } from './permissions.js';
import { httpUrl, ownerIdField, uniqueNameField } from './inputs.js';

/** The entity kinds a webhook may ask for: the catalog's and teams (their streams are `<kind>-<id>`). */
export const WEBHOOK_KINDS: readonly (CatalogKind | 'team')[] = [...CATALOG_KINDS, 'team'];

/**
 * What can be done to a webhook besides editing: the catalog's two, sending a dead one on again, and
 * taking it over (its deliveries then act with the rights of the caller: docs/contract.md §9).
 */
export const WEBHOOK_ACTIONS = ['enable', 'disable', 'redrive', 'takeOver'] as const;

/** An event type name as the log spells it (`ResourceApproved`). */
const eventTypeName = z.string().regex(/^[A-Z][A-Za-z]{2,80}$/, 'must be an event type such as ResourceApproved');

/** A Standard Webhooks secret: `whsec_` and the base64 of its key's bytes. */
const STANDARD_SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * A webhook's secret: the Standard Webhooks form (`whsec_` + base64 of 24–64 bytes), or any text of
 * 32–200 characters (its bytes are the key). A `whsec_` secret that does not decode is refused,
 * rather than signing with a key its receiver's library would never derive.
 */
const webhookSecret = z
  .string()
  .min(32, 'at least 32 characters')
  .max(200, 'at most 200 characters')
  .superRefine((secret, ctx) => {
    if (!secret.startsWith('whsec_')) return;
    const base64 = STANDARD_SECRET.exec(secret)?.[1];
    const bytes = base64 !== undefined && base64.length % 4 === 0 ? Buffer.from(base64, 'base64').length : 0;
    if (bytes < 24 || bytes > 64) {
      ctx.addIssue({
        code: 'custom',
        message: 'a whsec_ secret is whsec_ and the base64 of 24 to 64 bytes (whsec_$(openssl rand -base64 32))',
      });
    }
  });

/** Lists without repeats, each repeat named by its index. */
const noRepeats = <T extends z.ZodType<string>>(item: T, max: number) =>
  z
    .array(item)
    .max(max, `at most ${max} entries`)
    .superRefine((values, ctx) => {
      values.forEach((value, index) => {
        if (values.indexOf(value) < index) ctx.addIssue({ code: 'custom', path: [index], message: `repeats ${value}` });
      });
    });

/**
 * Webhooks (docs/contract.md §9): a target the service posts each matching event of its log to, at
 * least once and in log order, signed with HMAC-SHA256, as a CloudEvents 1.0 JSON body. Delivery
 * is src/delivery/; this is what a client writes.
 */
export const webhookEntity = {
  name: 'Webhook',
  kind: 'webhook',
  plural: 'webhooks',
  table: 'webhooks',
  description: 'A target the matching events of the log are posted to, signed, at least once and in order.',
  fields: {
    name: uniqueNameField('webhook-name', 'a webhook'),
    url: {
      kind: 'text',
      description: 'Where the events are posted (http or https); private addresses only where the operator allows them.',
      input: httpUrl.max(2000, 'at most 2000 characters'),
      required: true,
      search: true,
    },
    eventTypes: {
      kind: 'textList',
      description: 'The event types it wants (e.g. `ResourceApproved`); empty: every type.',
      input: noRepeats(eventTypeName, 100),
      default: [],
    },
    entityKinds: {
      kind: 'textList',
      description: `The entity kinds it wants (${WEBHOOK_KINDS.map((k) => `\`${k}\``).join(', ')}); empty: every kind.`,
      input: noRepeats(z.enum(WEBHOOK_KINDS, { message: `must be one of ${WEBHOOK_KINDS.join(', ')}` }), WEBHOOK_KINDS.length),
      default: [],
    },
    ownerIds: {
      kind: 'textList',
      description: 'The teams whose entities it wants (their ids); empty: whoever owns them, or nobody.',
      input: noRepeats(canonicalUuid, 50),
      default: [],
    },
    secret: {
      kind: 'text',
      description:
        'The secret the deliveries are signed with (write-only: shown as `********`): `whsec_` and the base64 of 24 to 64 random ' +
        'bytes, as the Standard Webhooks libraries take it (the key is those bytes); any other text of 32 characters or more is ' +
        'its own key. After a change the previous secret signs too, for 24 hours.',
      input: webhookSecret,
      required: true,
      filter: false,
      sort: false,
    },
    ownerId: ownerIdField(1),
    deliversAsId: {
      kind: 'text',
      description:
        'The user whose rights its deliveries have: its creator, or whoever took it over last. An event of an entity this user may not ' +
        'read is not sent; null for webhooks older than this field (their creator).',
      writable: false,
      nullable: true,
      default: null,
      addedIn: 2,
    },
    pausedReason: {
      kind: 'text',
      description:
        'Why deliveries are paused (the user they act as was deactivated or may no longer manage this webhook), until someone who ' +
        'may takes it over (`takeOver`); null while it delivers.',
      writable: false,
      nullable: true,
      default: null,
      addedIn: 2,
    },
  },
  secrets: { paths: ['secret'], restoreMessage: '"********" keeps the stored secret, but none is stored: send the secret itself' },
  actions: WEBHOOK_ACTIONS,
} as const satisfies EntityDeclaration;

/**
 * What managing a webhook takes (docs/contract.md §9): `webhook:write`, and `admin` on every kind
 * it asks for (no kinds: every kind), since it carries those kinds' events out of the service.
 * Undefined when the permissions suffice; otherwise the first one missing. The writes check it for
 * the caller, the deliveries for the user they act as (a webhook whose user lost it is paused).
 */
export function missingToManage(held: readonly Permission[], entityKinds: readonly string[]): Permission | undefined {
  const wanted: Permission[] = [
    'webhook:write',
    ...(entityKinds.length === 0 ? WEBHOOK_KINDS : entityKinds).map((kind) => `${kind as PermissionResource}:admin` as const),
  ];
  return wanted.find((permission) => !allows(held, permission));
}
