import { AppError, type FieldIssue } from '../errors.js';
import { loadAggregate, type CommandDeps } from './handler.js';
import { templateAggregate } from './template.js';

/** The kinds of entity a relation may point at, and how to tell whether one can be referenced. */
type ReferenceCheck = (deps: CommandDeps, id: string) => Promise<'ok' | 'missing' | 'disabled'>;

const checks: Partial<Record<string, ReferenceCheck>> = {
  template: async (deps, id) => {
    const { state } = await loadAggregate(deps, templateAggregate, id);
    if (state.status !== 'active') return 'missing';
    return state.enabled === 'enabled' ? 'ok' : 'disabled';
  },
};

export interface Reference {
  /** The input field, e.g. `parentIds`. */
  readonly field: string;
  readonly kind: string;
  readonly ids: readonly string[];
}

/**
 * Checks relation ids against the write model: each must name an existing, non-deleted entity, and a
 * disabled one cannot be newly referenced. All failures are reported together as one 422. Kinds that
 * do not exist yet in this build (executors until the entities issue) have no entity to point at.
 */
export async function checkReferences(deps: CommandDeps, references: readonly Reference[]): Promise<void> {
  const errors: FieldIssue[] = [];
  for (const { field, kind, ids } of references) {
    const check = checks[kind];
    for (const [index, id] of ids.entries()) {
      const verdict = check ? await check(deps, id) : 'missing';
      if (verdict === 'missing') errors.push({ field: `${field}[${index}]`, message: `${kind} ${id} does not exist` });
      if (verdict === 'disabled') errors.push({ field: `${field}[${index}]`, message: `${kind} ${id} is disabled and cannot be newly referenced` });
    }
  }
  if (errors.length > 0) throw new AppError('UNPROCESSABLE', `invalid references: ${errors.map((e) => e.field).join(', ')}`, { errors });
}

/** Ids in `next` that `previous` did not have: only new references are checked on update. */
export const addedIds = (previous: readonly string[], next: readonly string[]): string[] => next.filter((id) => !previous.includes(id));
