import type { DomainEvent } from '../events/codec.js';
import type { LifecycleEventTypes } from '../events/kits.js';
import type { Aggregate } from './decider.js';
import { entityBasics, type CatalogEntityConfig } from './catalog-entity.js';
import { initialPosition, positionAfterChange, transition, type LifecycleRules } from './lifecycle.js';
import { checkActionLineage, checkCreateLineage, type Lineage } from './lineage.js';
import type { LifecycleAction, LifecyclePosition } from '../model/lifecycle.js';

/**
 * Catalog entities that are provisioned (storages, executors, resources): instead of
 * enabled/disabled they move through the lifecycle state machine (`state`, `status`), and a delete
 * is one of its actions. Everything else (create, update, uniqueness, references) is as in
 * catalog-entity.ts.
 */
export type LifecycleCommand<F> =
  | { readonly type: 'Create'; readonly data: F & { readonly id: string; readonly approvalFlow: boolean; readonly lineage?: Lineage } }
  | { readonly type: 'Update'; readonly data: { readonly changes: Partial<F>; readonly approvalFlow: boolean } }
  | {
      readonly type: 'Act';
      readonly data: {
        readonly action: LifecycleAction;
        readonly approvalFlow: boolean;
        readonly outputs?: Record<string, unknown>;
        readonly error?: string;
        /** Why an approver approves or rejects (kept in the event, shown in the history). */
        readonly reason?: string;
        /** The right an approver decides under (docs/contract.md §6), kept in the event. */
        readonly authority?: string;
        /** Parents and children as their streams show them (entities with parents only; see lineage.ts). */
        readonly lineage?: Lineage;
      };
    };

interface Existing<F> {
  readonly id: string;
  readonly fields: F;
  readonly position: LifecyclePosition;
}

/** A lifecycle entity's write model: absent, live (with its state and status) or deleted. */
export type LifecycleEntityState<F> =
  { readonly status: 'absent' } | (Existing<F> & { readonly status: 'active' }) | (Existing<F> & { readonly status: 'deleted' });

/** What a lifecycle entity's aggregate is built from. */
export interface LifecycleEntityConfig<F extends Record<string, unknown>> extends CatalogEntityConfig<F> {
  readonly events: LifecycleEventTypes<string>;
  /** Resources have approve/reject; executors and storages do not. */
  readonly approvals: boolean;
  /** The fields a run deploys: changing one after approval asks for approval again (`deploys` in the declaration). */
  readonly deployFields?: readonly string[];
}

/** The aggregate of a lifecycle entity, generated from its configuration. */
export function lifecycleAggregate<F extends Record<string, unknown>>(
  config: LifecycleEntityConfig<F>,
): Aggregate<LifecycleCommand<F>, DomainEvent, LifecycleEntityState<F>> {
  const names = config.events;
  const rules = (approvalFlow: boolean): LifecycleRules => ({ approvals: config.approvals, approvalFlow });
  const { label, requireActive, checkCreate, decideUpdate, members } = entityBasics<F, { readonly position: LifecyclePosition }>(
    config,
    names.updated,
  );

  return {
    ...members,
    decide(command, state) {
      switch (command.type) {
        case 'Create': {
          const { id, approvalFlow, lineage, ...fields } = command.data;
          // The command's data is the fields with the create's facts beside them: the checks read only the fields.
          checkCreate(state, id, command.data);
          if (lineage) checkCreateLineage((fields as { parentIds?: readonly string[] }).parentIds ?? [], lineage);
          return [{ type: names.created, data: { ...fields, id, ...initialPosition(rules(approvalFlow)) } }];
        }
        case 'Update': {
          const updated = decideUpdate(state, command.data.changes);
          const changes = (updated[0]?.data as { changes?: Record<string, unknown> } | undefined)?.changes ?? {};
          const deployed = (config.deployFields ?? []).filter((field) => field in changes);
          if (deployed.length === 0) return updated;
          const from = requireActive(state).position;
          const to = positionAfterChange(from, rules(command.data.approvalFlow), label, deployed);
          if (to.state === from.state && to.status === from.status) return updated;
          return [...updated, { type: names.transitioned, data: { action: 'change', ...to, changedFields: deployed } }];
        }
        case 'Act': {
          const current = requireActive(state);
          const { action, approvalFlow, outputs, error, reason, authority, lineage } = command.data;
          const next = transition(current.position, action, rules(approvalFlow), label);
          if (lineage) checkActionLineage(action, lineage);
          if (next === 'deleted') return [{ type: names.deleted, data: {} }];
          return [
            {
              type: names.transitioned,
              data: {
                action,
                ...next,
                ...(outputs !== undefined && { outputs }),
                ...(error !== undefined && { error }),
                ...(reason !== undefined && { reason }),
                ...(authority !== undefined && { authority }),
              },
            },
          ];
        }
        default: {
          const unknown: never = command;
          throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
        }
      }
    },
    evolve(state, event) {
      const data = event.data as Record<string, unknown>;
      if (event.type === names.created) {
        const { id, state: lifecycleState, status, ...fields } = data;
        return { status: 'active', id: String(id), fields: fields as F, position: { state: lifecycleState, status } as LifecyclePosition };
      }
      if (state.status === 'absent') return state;
      switch (event.type) {
        case names.updated:
          return { ...state, fields: { ...state.fields, ...(data.changes as Partial<F>) } };
        case names.transitioned:
          return { ...state, position: { state: data.state, status: data.status } as LifecyclePosition };
        case names.deleted:
          return { ...state, status: 'deleted' };
        default:
          return state;
      }
    },
  };
}

/** Lifecycle entities may be referenced while they exist (they have no disabled status). */
export const lifecycleReferenceable = <F>(state: LifecycleEntityState<F>): 'ok' | 'missing' =>
  state.status === 'active' ? 'ok' : 'missing';
