import { describe, expect, it } from 'vitest';
import { allowedActions, initialPosition, nextPosition, transition, type LifecycleRules } from '../../src/commands/lifecycle.js';
import {
  LIFECYCLE_ACTIONS,
  LIFECYCLE_STATES,
  LIFECYCLE_STATUSES,
  type LifecycleAction,
  type LifecyclePosition,
} from '../../src/model/lifecycle.js';

const resource: LifecycleRules = { approvals: true, approvalFlow: true };
const resourceNoFlow: LifecycleRules = { approvals: true, approvalFlow: false };
const executor: LifecycleRules = { approvals: false, approvalFlow: true };

const at = (state: LifecyclePosition['state'], status: LifecyclePosition['status']): LifecyclePosition => ({ state, status });

/** docs/contract.md §2's table, written out independently of the implementation: every legal transition. */
const LEGAL: readonly [LifecyclePosition, LifecycleAction, LifecyclePosition | 'deleted'][] = [
  [at('provision', 'approval_pending'), 'approve', at('provision', 'ready')],
  [at('destroy', 'approval_pending'), 'approve', at('destroy', 'ready')],
  [at('provision', 'approval_pending'), 'reject', at('provision', 'rejected')],
  [at('destroy', 'approval_pending'), 'reject', at('provisioned', 'done')],
  // A change to a provisioned resource's deployed fields waits for approval (docs/contract.md §2, "Changes after approval").
  [at('provisioned', 'approval_pending'), 'approve', at('provisioned', 'ready')],
  [at('provisioned', 'approval_pending'), 'reject', at('provisioned', 'rejected')],
  [at('provisioned', 'rejected'), 'destroy', at('destroy', 'approval_pending')],
  ...LIFECYCLE_STATES.flatMap((s): [LifecyclePosition, LifecycleAction, LifecyclePosition][] => [
    [at(s, 'ready'), 'execute', at(s, 'queued')],
    [at(s, 'error'), 'execute', at(s, 'queued')],
    [at(s, 'queued'), 'start', at(s, 'in_progress')],
    // A queued run not started yet is called off: ready to execute again.
    [at(s, 'queued'), 'cancel', at(s, 'ready')],
    [at(s, 'in_progress'), 'fail', at(s, 'error')],
  ]),
  [at('provisioned', 'done'), 'execute', at('provisioned', 'queued')],
  [at('provision', 'in_progress'), 'succeed', at('provisioned', 'done')],
  [at('destroy', 'in_progress'), 'succeed', at('destroyed', 'done')],
  [at('provisioned', 'in_progress'), 'succeed', at('provisioned', 'done')],
  [at('destroyed', 'in_progress'), 'succeed', at('destroyed', 'done')],
  [at('provisioned', 'done'), 'destroy', at('destroy', 'approval_pending')],
  [at('provisioned', 'error'), 'destroy', at('destroy', 'approval_pending')],
  [at('destroyed', 'done'), 'recreate', at('provision', 'approval_pending')],
  [at('provision', 'rejected'), 'recreate', at('provision', 'approval_pending')],
  [at('destroyed', 'done'), 'delete', 'deleted'],
  [at('provision', 'rejected'), 'delete', 'deleted'],
  [at('provision', 'ready'), 'delete', 'deleted'],
  [at('provision', 'approval_pending'), 'delete', 'deleted'],
];

const key = (p: LifecyclePosition, a: LifecycleAction): string => `${p.state}/${p.status}/${a}`;
const legal = new Map(LEGAL.map(([from, action, to]) => [key(from, action), to]));
const everyPosition = LIFECYCLE_STATES.flatMap((state) => LIFECYCLE_STATUSES.map((status) => at(state, status)));

describe('the resource lifecycle (approval flow on)', () => {
  it('starts a request as provision / approval_pending', () => {
    expect(initialPosition(resource)).toEqual(at('provision', 'approval_pending'));
  });

  for (const [from, action, to] of LEGAL) {
    it(`${action} leads from ${from.state}/${from.status} to ${to === 'deleted' ? 'deleted' : `${to.state}/${to.status}`}`, () => {
      expect(transition(from, action, resource, 'resource')).toEqual(to);
    });
  }

  it('refuses every other action from every position with 409, the position and the allowed actions', () => {
    let refused = 0;
    for (const from of everyPosition) {
      for (const action of LIFECYCLE_ACTIONS) {
        if (legal.has(key(from, action))) continue;
        refused++;
        const allowed = LIFECYCLE_ACTIONS.filter((a) => legal.has(key(from, a)));
        expect(() => transition(from, action, resource, 'resource')).toThrow(
          expect.objectContaining({
            code: 'ILLEGAL_TRANSITION',
            message:
              `cannot ${action} a resource in state ${from.state} with status ${from.status}; allowed: ` + (allowed.join(', ') || 'none'),
            details: { currentState: from.state, currentStatus: from.status, allowedActions: allowed },
          }) as Error,
        );
      }
    }
    expect(refused).toBe(everyPosition.length * LIFECYCLE_ACTIONS.length - LEGAL.length);
  });

  it('lists the allowed actions of a position', () => {
    expect(allowedActions(at('provision', 'approval_pending'), resource)).toEqual(['approve', 'reject', 'delete']);
    expect(allowedActions(at('provisioned', 'done'), resource)).toEqual(['execute', 'destroy']);
    expect(allowedActions(at('provision', 'in_progress'), resource)).toEqual(['succeed', 'fail']);
  });
});

describe('the resource lifecycle with APPROVAL_FLOW=false', () => {
  it('starts, destroys and recreates as ready, skipping approval', () => {
    expect(initialPosition(resourceNoFlow)).toEqual(at('provision', 'ready'));
    expect(nextPosition(at('provisioned', 'done'), 'destroy', resourceNoFlow)).toEqual(at('destroy', 'ready'));
    expect(nextPosition(at('destroyed', 'done'), 'recreate', resourceNoFlow)).toEqual(at('provision', 'ready'));
  });
});

describe('the executor and storage lifecycle (no approvals)', () => {
  it('starts ready and never offers approve or reject', () => {
    expect(initialPosition(executor)).toEqual(at('provision', 'ready'));
    for (const from of everyPosition) {
      expect(nextPosition(from, 'approve', executor)).toBeUndefined();
      expect(nextPosition(from, 'reject', executor)).toBeUndefined();
    }
  });

  it('runs a full provision and destroy journey', () => {
    const rules = executor;
    let position: LifecyclePosition = initialPosition(rules);
    for (const action of ['execute', 'start', 'succeed', 'destroy', 'execute', 'start', 'succeed'] as const) {
      const next = transition(position, action, rules, 'executor');
      if (next === 'deleted') throw new Error('unexpected delete');
      position = next;
    }
    expect(position).toEqual(at('destroyed', 'done'));
    expect(transition(position, 'delete', rules, 'executor')).toBe('deleted');
  });
});
