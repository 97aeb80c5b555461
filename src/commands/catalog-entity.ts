import { AppError, notFound, type FieldIssue } from '../errors.js';
import type { DomainEvent } from '../events/codec.js';
import type { CatalogEventTypes, LifecycleEventTypes } from '../events/kits.js';
import { streamName } from '../events/streams.js';
import { immutableFields, referencesOf, repeatedIds, uniqueKeysOf, type EntityDeclaration } from '../model/entity.js';
import type { Aggregate, Ref, UniqueKey } from './decider.js';

/**
 * The shared shape of declared kinds that have a plain enabled/disabled status (every kind without a
 * `lifecycle`): create, update (some fields immutable), enable, disable, delete — with uniqueness,
 * references and domain checks declared per entity.
 */
export type EntityStatus = 'enabled' | 'disabled';

/** What a catalog entity with an enabled/disabled status can be asked to do. */
export type CatalogCommand<F> =
  | { readonly type: 'Create'; readonly data: F & { readonly id: string; readonly status: EntityStatus } }
  | { readonly type: 'Update'; readonly data: { readonly changes: Partial<F> } }
  | { readonly type: 'Enable' }
  | { readonly type: 'Disable' }
  | { readonly type: 'Delete' };

interface Existing<F> {
  readonly id: string;
  readonly fields: F;
  readonly enabled: EntityStatus;
}

/** A catalog entity's write model: absent, live or deleted. */
export type CatalogState<F> =
  { readonly status: 'absent' } | (Existing<F> & { readonly status: 'active' }) | (Existing<F> & { readonly status: 'deleted' });

/** What a catalog entity's aggregate is built from. */
export interface CatalogEntityConfig<F extends Record<string, unknown>> {
  /** Stream prefix, permission resource and reference kind, e.g. `integration`. */
  readonly kind: string;
  /** The entity's event type names (e.g. `integrationEventTypes`: IntegrationCreated …). */
  readonly events: CatalogEventTypes<string> | LifecycleEventTypes<string>;
  /** Fields that never change after creation (a PATCH changing one is a 422). */
  readonly immutable: readonly (keyof F & string)[];
  readonly uniqueKeys: (fields: F) => UniqueKey[];
  readonly references: (fields: F) => Ref[];
  /** Domain rules beyond the edge schema (cross-field rules): each issue becomes a 422. */
  readonly check?: (fields: F, id: string) => FieldIssue[];
}

/**
 * The write rules a declaration states — the kind, immutable fields, unique keys, references and
 * "no id twice in a list" — plus the entity's own cross-field rules (`check`), for either kit.
 */
export function declaredRules<F extends Record<string, unknown>>(
  entity: EntityDeclaration,
  check?: (fields: F, id: string) => FieldIssue[],
): Omit<CatalogEntityConfig<F>, 'events'> {
  return {
    kind: entity.kind,
    immutable: immutableFields(entity),
    uniqueKeys: (fields) => uniqueKeysOf(entity, fields),
    references: (fields) => referencesOf(entity, fields),
    check: (fields, id) => [...repeatedIds(entity, fields), ...(check?.(fields, id) ?? [])],
  };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Refuses the cross-field rule violations of an entity as one 422. */
export function checkFields<F extends Record<string, unknown>>(config: CatalogEntityConfig<F>, fields: F, id: string): void {
  const issues = config.check?.(fields, id) ?? [];
  if (issues.length > 0) throw new AppError('UNPROCESSABLE', issues.map((i) => i.message).join('; '), { errors: issues });
}

/**
 * The changes an update really makes (none → no event): immutable fields may be sent only unchanged
 * (422 naming them otherwise), and the result must still pass the entity's checks.
 */
export function effectiveUpdate<F extends Record<string, unknown>>(
  config: CatalogEntityConfig<F>,
  current: { id: string; fields: F },
  requested: Partial<F>,
): Partial<F> {
  for (const field of config.immutable) {
    const next = requested[field];
    if (next !== undefined && !same(next, current.fields[field])) {
      const message = `${field} is immutable (it is ${JSON.stringify(current.fields[field])})`;
      throw new AppError('UNPROCESSABLE', message, { errors: [{ field, message }] });
    }
  }
  const changes = Object.fromEntries(
    Object.entries(requested).filter(([k, v]) => v !== undefined && !same(v, current.fields[k])),
  ) as Partial<F>;
  if (Object.keys(changes).length > 0) checkFields(config, { ...current.fields, ...changes }, current.id);
  return changes;
}

/** The state both entity kits share: absent, or an existing entity's id and fields, live or deleted. */
type EntityState<F, X> =
  { readonly status: 'absent' } | ({ readonly status: 'active' | 'deleted'; readonly id: string; readonly fields: F } & X);

/**
 * What both entity kits share: looking up the live entity (404 otherwise), the create and update
 * decisions, and the aggregate members that depend only on fields (identity, uniqueness, references).
 */
export function entityBasics<F extends Record<string, unknown>, X>(config: CatalogEntityConfig<F>, updatedType: string) {
  const label = config.kind.replaceAll('_', ' ');
  const requireActive = (state: EntityState<F, X>): { readonly id: string; readonly fields: F } & X => {
    if (state.status !== 'active') throw notFound(`${label} not found`);
    return state;
  };
  return {
    label,
    requireActive,
    /** Refuses an existing id and the entity's cross-field rules. */
    checkCreate: (state: EntityState<F, X>, id: string, fields: F): void => {
      if (state.status !== 'absent') throw new AppError('ALREADY_EXISTS', `${label} ${id} already exists`);
      checkFields(config, fields, id);
    },
    decideUpdate: (state: EntityState<F, X>, requested: Partial<F>): DomainEvent[] => {
      const changes = effectiveUpdate(config, requireActive(state), requested);
      return Object.keys(changes).length === 0 ? [] : [{ type: updatedType, data: { changes } }];
    },
    members: {
      kind: config.kind,
      streamId: streamName(config.kind).build,
      initialState: { status: 'absent' } as EntityState<F, X>,
      uniqueKeys: (state: EntityState<F, X>) => (state.status === 'active' ? config.uniqueKeys(state.fields) : []),
      references: (state: EntityState<F, X>) => (state.status === 'active' ? config.references(state.fields) : []),
      isDeleted: (state: EntityState<F, X>) => state.status === 'deleted',
    },
  };
}

/** The aggregate of a catalog entity, generated from its configuration. */
export function catalogAggregate<F extends Record<string, unknown>>(
  config: CatalogEntityConfig<F> & { readonly events: CatalogEventTypes<string> },
): Aggregate<CatalogCommand<F>, DomainEvent, CatalogState<F>> {
  const names = config.events;
  const { requireActive, checkCreate, decideUpdate, members } = entityBasics<F, { readonly enabled: EntityStatus }>(config, names.updated);

  return {
    ...members,
    decide(command, state) {
      switch (command.type) {
        case 'Create': {
          // The command's data is the fields with the id and status beside them: the checks read only the fields.
          checkCreate(state, command.data.id, command.data);
          return [{ type: names.created, data: command.data }];
        }
        case 'Update':
          return decideUpdate(state, command.data.changes);
        case 'Enable':
          return requireActive(state).enabled === 'enabled' ? [] : [{ type: names.enabled, data: {} }];
        case 'Disable':
          return requireActive(state).enabled === 'disabled' ? [] : [{ type: names.disabled, data: {} }];
        case 'Delete':
          // Referrers are refused by the command handler against the write model (references.ts).
          requireActive(state);
          return [{ type: names.deleted, data: {} }];
        default: {
          const unknown: never = command;
          throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
        }
      }
    },
    evolve(state, event) {
      const data = event.data as Record<string, unknown>;
      if (event.type === names.created) {
        const { id, status, ...fields } = data;
        return { status: 'active', id: String(id), enabled: status as EntityStatus, fields: fields as F };
      }
      if (state.status === 'absent') return state;
      switch (event.type) {
        case names.updated:
          return { ...state, fields: { ...state.fields, ...(data.changes as Partial<F>) } };
        case names.enabled:
          return { ...state, enabled: 'enabled' };
        case names.disabled:
          return { ...state, enabled: 'disabled' };
        case names.deleted:
          return { ...state, status: 'deleted' };
        default:
          return state;
      }
    },
  };
}

/** Whether an entity in this state may be newly referenced (for `kinds.ts`). */
export const catalogReferenceable = <F>(state: CatalogState<F>): 'ok' | 'missing' | 'disabled' =>
  state.status !== 'active' ? 'missing' : state.enabled === 'enabled' ? 'ok' : 'disabled';
