/**
 * The vocabulary of the provisioning lifecycle (docs/contract.md §2, "Resource lifecycle"): what
 * `state`, `status` and the actions of resources, executors and storages may be. Events validate
 * against it, the deciders move through it (commands/lifecycle.ts), lists filter by it.
 */
export const LIFECYCLE_STATES = ['provision', 'provisioned', 'destroy', 'destroyed'] as const;
/** What can be happening to a lifecycle entity. */
export const LIFECYCLE_STATUSES = ['approval_pending', 'rejected', 'ready', 'queued', 'in_progress', 'done', 'error'] as const;
/** What a caller or the runner may ask of a lifecycle entity. */
// `cancel` is last: it came later, and the order is the one 409s and buttons list actions in.
export const LIFECYCLE_ACTIONS = [
  'approve',
  'reject',
  'execute',
  'start',
  'succeed',
  'fail',
  'destroy',
  'recreate',
  'delete',
  'cancel',
] as const;

/**
 * What moved a lifecycle entity, as its Transitioned events record it: an action, or `change`: a
 * change to what was approved sent the request back to approval (no caller takes it as an action).
 */
export const TRANSITION_CAUSES = [...LIFECYCLE_ACTIONS, 'change'] as const;

/** Where a lifecycle entity is in its life. */
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
/** What is happening to it now. */
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];
/** What a caller or the runner may ask of it. */
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

/** A lifecycle entity's state and status together. */
export interface LifecyclePosition {
  readonly state: LifecycleState;
  readonly status: LifecycleStatus;
}

/** The plain status of the other catalog entities. */
export const ENABLED_STATUSES = ['enabled', 'disabled'] as const;
/** `enabled` or `disabled`: disabled entities cannot be newly referenced. */
export type EnabledStatus = (typeof ENABLED_STATUSES)[number];
