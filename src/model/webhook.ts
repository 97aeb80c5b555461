import { z } from 'zod';
import { canonicalUuid } from '../validation.js';
import type { EntityDeclaration } from './entity.js';
import { httpUrl, ownerIdField, uniqueNameField } from './inputs.js';

/** The entity kinds a webhook may ask for: the catalog's and teams (their streams are `<kind>-<id>`). */
export const WEBHOOK_KINDS = [
  'template',
  'integration',
  'secret',
  'workspace',
  'source_code',
  'source_code_version',
  'storage',
  'executor',
  'resource',
  'team',
] as const;

/** What can be done to a webhook besides editing: the catalog's two, and sending a dead one on again. */
export const WEBHOOK_ACTIONS = ['enable', 'disable', 'redrive'] as const;

/** An event type name as the log spells it (`ResourceApproved`). */
const eventTypeName = z.string().regex(/^[A-Z][A-Za-z]{2,80}$/, 'must be an event type such as ResourceApproved');

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
        'The HMAC-SHA256 key the deliveries are signed with (write-only: shown as `********`). After a change the previous key ' +
        'signs too, for 24 hours.',
      input: z.string().min(32, 'at least 32 characters').max(200, 'at most 200 characters'),
      required: true,
      filter: false,
      sort: false,
    },
    ownerId: ownerIdField(1),
  },
  secrets: { paths: ['secret'], restoreMessage: '"********" keeps the stored secret, but none is stored: send the secret itself' },
} as const satisfies EntityDeclaration;
