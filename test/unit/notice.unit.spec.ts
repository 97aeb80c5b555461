import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../../src/events/codec.js';
import { messageOf } from '../../src/delivery/notifications.js';
import { mayNotify, noticeOf } from '../../src/delivery/notice.js';
import type { NoticeContext } from '../../src/delivery/recipients.js';

/** The notification rules (docs/contract.md §11): which resource events tell someone, and in what words. */

const ID = '7d0c0c39-4b56-4f6e-9d38-0e8f5b9d1a11';
const event = (type: string, data: Record<string, unknown>, streamId = `resource-${ID}`): DecodedEvent => ({
  event: { type, data },
  metadata: { actorId: null, correlationId: 'c', causationId: 'c', occurredAt: '2026-11-28T00:00:00.000Z', schemaVersion: 1 },
  eventId: 'e',
  streamId,
  streamRevision: 0n,
  position: 1n,
});

describe('the notice of an event', () => {
  it('is a request waiting when a resource is created or sent back waiting for approval', () => {
    expect(noticeOf(event('ResourceCreated', { status: 'approval_pending', state: 'provision' }))).toEqual({
      rule: 'approval_requested',
      resourceId: ID,
    });
    expect(noticeOf(event('ResourceTransitioned', { action: 'change', status: 'approval_pending', state: 'provision' }))).toEqual({
      rule: 'approval_requested',
      resourceId: ID,
    });
    expect(noticeOf(event('ResourceCreated', { status: 'ready', state: 'provision' }))).toBeUndefined();
  });

  it('is a decision with its reason, or a failed run with its error', () => {
    expect(noticeOf(event('ResourceTransitioned', { action: 'reject', status: 'rejected', reason: 'too big' }))).toEqual({
      rule: 'rejected',
      resourceId: ID,
      reason: 'too big',
    });
    expect(noticeOf(event('ResourceTransitioned', { action: 'approve', status: 'ready', reason: '  ' }))).toEqual({
      rule: 'approved',
      resourceId: ID,
    });
    expect(noticeOf(event('ResourceTransitioned', { action: 'fail', status: 'error', error: 'quota' }))).toEqual({
      rule: 'run_failed',
      resourceId: ID,
      error: 'quota',
    });
    expect(noticeOf(event('ResourceTransitioned', { action: 'succeed', status: 'done' }))).toBeUndefined();
  });

  it('comes only from resources (an executor failing tells nobody), known from the stream and type alone', () => {
    expect(mayNotify(`executor-${ID}`, 'ExecutorTransitioned')).toBe(false);
    expect(mayNotify(`resource-${ID}`, 'ResourceUpdated')).toBe(false);
    expect(noticeOf(event('ExecutorTransitioned', { action: 'fail', status: 'error' }, `executor-${ID}`))).toBeUndefined();
  });
});

describe('the message of a notice', () => {
  const lena = { id: 'l', name: 'Lena', email: 'lena@example.com' };
  const bob = { id: 'b', name: 'Bob', email: null };
  const context: NoticeContext = {
    resource: { id: ID, name: 'orders-db', templateName: 'postgres' },
    requester: bob,
    actor: lena,
    recipients: [lena],
    audience: 'the leads of team payments',
  };

  it('says what happened, to what, by whom, with a link to the resource', () => {
    expect(messageOf({ rule: 'approval_requested', resourceId: ID }, context, 'https://il.example.com/')).toBe(
      `Request orders-db (template postgres) by Bob waits for approval by the leads of team payments: https://il.example.com/resources/${ID}/show`,
    );
    expect(messageOf({ rule: 'rejected', resourceId: ID, reason: 'too big' }, context, 'https://il.example.com')).toBe(
      `Your request orders-db was rejected by Lena: "too big" https://il.example.com/resources/${ID}/show`,
    );
    expect(
      messageOf({ rule: 'run_failed', resourceId: ID }, { ...context, resource: { ...context.resource, templateName: null } }, 'https://x'),
    ).toBe(`A run of orders-db failed https://x/resources/${ID}/show`);
  });
});
