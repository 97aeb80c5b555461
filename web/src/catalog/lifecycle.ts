/**
 * The provisioning state machine of docs/contract.md §2, mirrored from src/commands/lifecycle.ts so the UI only
 * offers the actions the service would accept now (the service still decides, and says why not).
 */
export type LifecycleAction = 'approve' | 'reject' | 'execute' | 'cancel' | 'destroy' | 'recreate' | 'delete';

export const LIFECYCLE_STATES = ['provision', 'provisioned', 'destroy', 'destroyed'] as const;
export const LIFECYCLE_STATUSES = ['approval_pending', 'rejected', 'ready', 'queued', 'in_progress', 'done', 'error'] as const;

/** Whether `action` is allowed from state/status (approvals: resources only). */
export function isAllowed(action: LifecycleAction, state: string, status: string, approvals: boolean): boolean {
  switch (action) {
    case 'approve':
    case 'reject':
      // Requests: a provision, a destroy, or a change to what a provisioned resource deploys.
      return approvals && status === 'approval_pending' && state !== 'destroyed';
    case 'execute':
      return status === 'ready' || status === 'error' || (status === 'done' && state === 'provisioned');
    case 'cancel':
      return status === 'queued';
    case 'destroy':
      return state === 'provisioned' && (status === 'done' || status === 'error' || status === 'rejected');
    case 'recreate':
      return (state === 'destroyed' && status === 'done') || (state === 'provision' && status === 'rejected');
    case 'delete':
      return (
        (state === 'destroyed' && status === 'done') ||
        (state === 'provision' && (status === 'rejected' || status === 'ready' || status === 'approval_pending'))
      );
  }
}

/** Approvers need write access; owners are the creator or anyone with write access. */
export const ACTOR: Readonly<Record<LifecycleAction, 'approver' | 'owner'>> = {
  approve: 'approver',
  reject: 'approver',
  execute: 'owner',
  cancel: 'owner',
  destroy: 'owner',
  recreate: 'owner',
  delete: 'owner',
};

export const ACTION_LABELS: Readonly<Record<LifecycleAction, string>> = {
  approve: 'Approve',
  reject: 'Reject',
  execute: 'Execute',
  cancel: 'Cancel run',
  destroy: 'Destroy',
  recreate: 'Recreate',
  delete: 'Delete',
};
