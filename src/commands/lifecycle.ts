import { AppError } from '../errors.js';
import { LIFECYCLE_ACTIONS, type LifecycleAction, type LifecyclePosition, type LifecycleState } from '../model/lifecycle.js';

/**
 * The provisioning state machine of docs/contract.md §2 ("Resource lifecycle"), shared by resources (with the
 * approval steps) and by executors and storages (without them). Pure: the deciders ask it where an
 * action leads and refuse with the allowed actions when it leads nowhere.
 */
export interface LifecycleRules {
  /** Resources have approve/reject; executors and storages do not. */
  readonly approvals: boolean;
  /** APPROVAL_FLOW: when off (or without approvals) requests start `ready`, not `approval_pending`. */
  readonly approvalFlow: boolean;
}

/** Who may take an action (the route maps these onto permissions). */
export type ActionActor = 'approver' | 'owner' | 'runner';

/** Who may take each lifecycle action. */
export const ACTION_ACTORS: Readonly<Record<LifecycleAction, ActionActor>> = {
  approve: 'approver',
  reject: 'approver',
  execute: 'owner',
  destroy: 'owner',
  recreate: 'owner',
  delete: 'owner',
  cancel: 'owner',
  start: 'runner',
  succeed: 'runner',
  fail: 'runner',
};

/** Where a new request (or a destroy/recreate) waits: for approval, or ready to run. */
const requested = (state: LifecycleState, rules: LifecycleRules): LifecyclePosition => ({
  state,
  status: rules.approvals && rules.approvalFlow ? 'approval_pending' : 'ready',
});

/** The position of a newly created entity. */
export const initialPosition = (rules: LifecycleRules): LifecyclePosition => requested('provision', rules);

/** Where `action` leads from `from`; `deleted` for a delete; undefined when it is not allowed. */
export function nextPosition(
  from: LifecyclePosition,
  action: LifecycleAction,
  rules: LifecycleRules,
): LifecyclePosition | 'deleted' | undefined {
  const { state, status } = from;
  switch (action) {
    case 'approve':
      // Only requests wait for approval: a provision, a destroy, or a change to a provisioned resource.
      return rules.approvals && status === 'approval_pending' && state !== 'destroyed' ? { state, status: 'ready' } : undefined;
    case 'reject':
      if (!rules.approvals || status !== 'approval_pending') return undefined;
      // Rejecting a destroy request cancels it: the resource stays provisioned.
      if (state === 'destroy') return { state: 'provisioned', status: 'done' };
      // A rejected change leaves the provisioned resource as it runs, its new fields never deployed.
      return state === 'provision' || state === 'provisioned' ? { state, status: 'rejected' } : undefined;
    case 'execute':
      return status === 'ready' || status === 'error' || (status === 'done' && state === 'provisioned')
        ? { state, status: 'queued' }
        : undefined;
    case 'start':
      return status === 'queued' ? { state, status: 'in_progress' } : undefined;
    case 'succeed':
      if (status !== 'in_progress') return undefined;
      return { state: state === 'provision' ? 'provisioned' : state === 'destroy' ? 'destroyed' : state, status: 'done' };
    case 'fail':
      return status === 'in_progress' ? { state, status: 'error' } : undefined;
    case 'destroy':
      return state === 'provisioned' && (status === 'done' || status === 'error' || status === 'rejected')
        ? requested('destroy', rules)
        : undefined;
    case 'recreate':
      return (state === 'destroyed' && status === 'done') || (state === 'provision' && status === 'rejected')
        ? requested('provision', rules)
        : undefined;
    case 'cancel':
      // A queued run that has not started is called off: the entity is ready to execute again.
      return status === 'queued' ? { state, status: 'ready' } : undefined;
    case 'delete':
      return (state === 'destroyed' && status === 'done') ||
        (state === 'provision' && (status === 'rejected' || status === 'ready' || status === 'approval_pending'))
        ? 'deleted'
        : undefined;
  }
}

/**
 * Where a change to what a run deploys leaves an entity with approvals (docs/contract.md §2, "Changes
 * after approval"): what was approved and not yet deployed, or deployed, waits for approval again;
 * a request still waiting or refused, or a destroyed entity (recreating asks again), stays where it
 * is; while a run is queued or under way, or a destroy is requested, the change is refused (409).
 */
export function positionAfterChange(
  from: LifecyclePosition,
  rules: LifecycleRules,
  label: string,
  fields: readonly string[],
): LifecyclePosition {
  const { state, status } = from;
  if (!rules.approvals || !rules.approvalFlow) return from;
  if (status === 'queued' || status === 'in_progress' || state === 'destroy') {
    throw new AppError(
      'ENTITY_BUSY',
      `cannot change ${fields.join(', ')} of a ${label} in state ${state} with status ${status}: wait until the run or request has ended`,
      {
        details: { currentState: state, currentStatus: status, changedFields: fields },
      },
    );
  }
  if (state === 'destroyed' || status === 'approval_pending' || (state === 'provision' && status === 'rejected')) return from;
  return { state, status: 'approval_pending' };
}

/** Every action allowed from a position, in a stable order (for 409s and for the UI's buttons). */
export const allowedActions = (from: LifecyclePosition, rules: LifecycleRules): LifecycleAction[] =>
  LIFECYCLE_ACTIONS.filter((action) => nextPosition(from, action, rules) !== undefined);

/** Like nextPosition, but an illegal action is the 409 docs/contract.md §2 asks for: current position and what is allowed. */
export function transition(
  from: LifecyclePosition,
  action: LifecycleAction,
  rules: LifecycleRules,
  label: string,
): LifecyclePosition | 'deleted' {
  const next = nextPosition(from, action, rules);
  if (next !== undefined) return next;
  const allowed = allowedActions(from, rules);
  const article = /^[aeiou]/.test(label) ? 'an' : 'a';
  throw new AppError(
    'ILLEGAL_TRANSITION',
    `cannot ${action} ${article} ${label} in state ${from.state} with status ${from.status}; allowed: ${allowed.join(', ') || 'none'}`,
    {
      // Not `status`: that member of a problem-details body is the HTTP status (RFC 9457).
      details: { currentState: from.state, currentStatus: from.status, allowedActions: allowed },
    },
  );
}
