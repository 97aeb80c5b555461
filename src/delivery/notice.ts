import type { DecodedEvent } from '../events/codec.js';
import { resourceEventTypes } from '../events/resource.js';

/**
 * The notification rules (docs/contract.md §11): which events of a resource tell people something.
 * A pure reading of one event; who hears it, and in what words, is ./recipients.ts's and
 * ./notifications.ts's business.
 */

/** Why people are told: a request waits for approval, was decided, or its run failed. */
export type NoticeRule = 'approval_requested' | 'approved' | 'rejected' | 'run_failed';

/** What an event says that someone should hear. */
export interface Notice {
  readonly rule: NoticeRule;
  readonly resourceId: string;
  /** The approver's reason (approved, rejected), when one was given. */
  readonly reason?: string;
  /** The runner's error (run_failed), when one was given. */
  readonly error?: string;
}

const RESOURCE_STREAM = 'resource-';

/** Whether an event may carry a notice, by its stream and type alone (no decoding needed). */
export const mayNotify = (streamId: string, type: string): boolean =>
  streamId.startsWith(RESOURCE_STREAM) && (type === resourceEventTypes.created || type === resourceEventTypes.transitioned);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** The notice an event carries, if any. */
export function noticeOf(decoded: DecodedEvent): Notice | undefined {
  const { streamId, event } = decoded;
  if (!mayNotify(streamId, event.type)) return undefined;
  const resourceId = streamId.slice(RESOURCE_STREAM.length);
  const data = event.data as { status?: unknown; action?: unknown; reason?: unknown; error?: unknown };
  // A request waits: created waiting, or sent back to approval (a change to what was approved, destroy, recreate).
  if (data.status === 'approval_pending') return { rule: 'approval_requested', resourceId };
  if (event.type !== resourceEventTypes.transitioned) return undefined;
  const reason = text(data.reason);
  const error = text(data.error);
  if (data.action === 'approve') return { rule: 'approved', resourceId, ...(reason && { reason }) };
  if (data.action === 'reject') return { rule: 'rejected', resourceId, ...(reason && { reason }) };
  if (data.action === 'fail') return { rule: 'run_failed', resourceId, ...(error && { error }) };
  return undefined;
}
