import { randomBytes, randomUUID } from 'node:crypto';
import { allEventDefinitions } from '../src/events/catalog.js';
import { createEventCodec, type EventCodec } from '../src/events/codec.js';
import { createKeyring } from '../src/events/crypto.js';
import type { NewEvent } from '../src/events/store/port.js';
import type { TemplateEvent } from '../src/events/template.js';

/** The service's codec over every event definition, with `key` (default: a random throwaway one). */
export function benchCodec(key: Buffer = randomBytes(32)): EventCodec {
  return createEventCodec(allEventDefinitions, createKeyring({ active: key }));
}

/** The stream of a template, as `templateAggregate.streamId` names it. */
export const templateStream = (id: string): string => `template-${id}`;

// A few users and executors, shared by every template, as in a real catalog.
const ACTORS = Array.from({ length: 8 }, () => randomUUID());
const EXECUTORS = Array.from({ length: 16 }, () => randomUUID());
const TEAMS = ['platform', 'payments', 'search', 'data', 'identity'];
const RESOURCE_TYPES = ['aws:ec2:instance', 'aws:rds:instance', 'aws:s3:bucket', 'gcp:compute:instance', 'k8s:deployment'];

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;

/** How the i-th template is named. */
export type TemplateNames = (i: number) => string;

/** Friendly names ending in a six-digit index: "Service template 001234". */
export const friendlyNames: TemplateNames = (i) => `Service template ${String(i).padStart(6, '0')}`;

/** The seed's style, every name sharing its leading trigrams with every other: "res-1234". */
export const sharedTrigramNames: TemplateNames = (i) => `res-${i}`;

/** A TemplateCreated event for the i-th template; `parentId` (an earlier template) is optional. */
export function templateCreated(id: string, i: number, parentId?: string, names: TemplateNames = friendlyNames): TemplateEvent {
  return {
    type: 'TemplateCreated',
    data: {
      id,
      name: names(i),
      template: `svc-${String(i).padStart(6, '0')}`,
      description: `Standard ${pick(RESOURCE_TYPES, i)} deployment for the ${pick(TEAMS, i)} team, with monitoring and backups.`,
      labels: [`team:${pick(TEAMS, i)}`, i % 2 === 0 ? 'env:prod' : 'env:staging', 'managed'],
      abstract: i % 10 === 0,
      cloudResourceTypes: [pick(RESOURCE_TYPES, i), pick(RESOURCE_TYPES, i + 2)],
      configuration: {
        region: i % 3 === 0 ? 'eu-west-1' : 'us-east-1',
        size: 'm5.large',
        replicas: 1 + (i % 5),
        tags: { costCenter: `cc-${i % 40}` },
      },
      documentationUrl: i % 2 === 0 ? `https://docs.example.com/templates/${i}` : null,
      executorIds: i % 3 === 0 ? [pick(EXECUTORS, i), pick(EXECUTORS, i + 7)] : [pick(EXECUTORS, i)],
      parentIds: parentId === undefined ? [] : [parentId],
      ownerId: null,
      // A quarter start disabled, so that TemplateEnabled has something to enable.
      status: i % 4 === 3 ? 'disabled' : 'enabled',
    },
  };
}

/**
 * The event that follows creation for the i-th template: half TemplateUpdated (a description,
 * labels or executors change), a quarter TemplateDisabled, a quarter TemplateEnabled (those created
 * disabled), matching what the decider would emit.
 */
export function templateFollowUp(i: number): TemplateEvent {
  switch (i % 4) {
    case 0:
      return {
        type: 'TemplateUpdated',
        data: { changes: { description: `Revised runbook ${i}: now with autoscaling.`, labels: [`team:${pick(TEAMS, i)}`, 'env:prod'] } },
      };
    case 1:
      return {
        type: 'TemplateUpdated',
        data: {
          changes: { executorIds: [pick(EXECUTORS, i + 3)], configuration: { region: 'eu-central-1', size: 'm5.xlarge', replicas: 3 } },
        },
      };
    case 2:
      return { type: 'TemplateDisabled', data: {} };
    default:
      return { type: 'TemplateEnabled', data: {} };
  }
}

/** An edit as a user would make it repeatedly on one template (the n-th one on that stream). */
export function templateEdit(n: number): TemplateEvent {
  return { type: 'TemplateUpdated', data: { changes: { description: `Edit number ${n} of this template.` } } };
}

/** Encodes a domain event exactly as the command handler does: codec, metadata, fresh event id. */
export function encode(codec: EventCodec, event: TemplateEvent, i: number, occurredAt: Date): NewEvent {
  // As the HTTP edge stamps it: the request id is the causation, the correlation id comes from a header.
  const metadata = {
    actorId: pick(ACTORS, i),
    correlationId: randomUUID(),
    causationId: `req-${i.toString(36)}`,
    occurredAt: occurredAt.toISOString(),
  };
  return codec.encode(event, metadata, randomUUID());
}
