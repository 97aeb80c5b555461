import { AppError, notFound } from '../errors.js';
import type { TemplateChanges, TemplateEvent, TemplateFields } from '../events/template.js';
import { defineAggregate, type Aggregate, type Ref, type UniqueKey } from './decider.js';

export type TemplateStatus = 'enabled' | 'disabled';

export type TemplateCommand =
  | { readonly type: 'CreateTemplate'; readonly data: TemplateFields & { readonly id: string; readonly status: TemplateStatus } }
  | { readonly type: 'UpdateTemplate'; readonly data: { readonly changes: TemplateChanges & { readonly template?: string } } }
  | { readonly type: 'EnableTemplate' }
  | { readonly type: 'DisableTemplate' }
  | { readonly type: 'DeleteTemplate' };

interface ExistingTemplate {
  readonly id: string;
  readonly fields: TemplateFields;
  readonly enabled: TemplateStatus;
}

export type TemplateState =
  | { readonly status: 'absent' }
  | (ExistingTemplate & { readonly status: 'active' })
  | (ExistingTemplate & { readonly status: 'deleted' });

const unprocessableField = (field: string, message: string): AppError => new AppError('UNPROCESSABLE', message, { errors: [{ field, message }] });

function requireActive(state: TemplateState): ExistingTemplate {
  if (state.status !== 'active') throw notFound('template not found');
  return state;
}

/** Only the keys whose values really change; a PATCH that changes nothing writes no event. */
function effectiveChanges(current: TemplateFields, changes: TemplateChanges): TemplateChanges {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (JSON.stringify(value) !== JSON.stringify(current[key as keyof TemplateFields])) out[key] = value;
  }
  return out;
}

function decide(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.status !== 'absent') throw new AppError('CONFLICT', `template ${command.data.id} already exists`);
      if (command.data.parentIds.includes(command.data.id)) throw unprocessableField('parentIds', 'a template cannot be its own parent');
      return [{ type: 'TemplateCreated', data: command.data }];
    }
    case 'UpdateTemplate': {
      const current = requireActive(state);
      const { template, ...rest } = command.data.changes;
      if (template !== undefined && template !== current.fields.template) {
        throw unprocessableField('template', `template is immutable (it is "${current.fields.template}")`);
      }
      if (rest.parentIds?.includes(current.id)) throw unprocessableField('parentIds', 'a template cannot be its own parent');
      const changes = effectiveChanges(current.fields, rest);
      return Object.keys(changes).length === 0 ? [] : [{ type: 'TemplateUpdated', data: { changes } }];
    }
    case 'EnableTemplate':
      return requireActive(state).enabled === 'enabled' ? [] : [{ type: 'TemplateEnabled', data: {} }];
    case 'DisableTemplate':
      return requireActive(state).enabled === 'disabled' ? [] : [{ type: 'TemplateDisabled', data: {} }];
    case 'DeleteTemplate':
      // Referrers are checked by the command handler against the write model (references.ts).
      requireActive(state);
      return [{ type: 'TemplateDeleted', data: {} }];
    default: {
      const unknown: never = command;
      throw new TypeError(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated': {
      const { id, status, ...fields } = event.data;
      return { status: 'active', id, fields, enabled: status };
    }
    case 'TemplateUpdated':
      return state.status === 'absent' ? state : { ...state, fields: { ...state.fields, ...event.data.changes } };
    case 'TemplateEnabled':
      return state.status === 'absent' ? state : { ...state, enabled: 'enabled' };
    case 'TemplateDisabled':
      return state.status === 'absent' ? state : { ...state, enabled: 'disabled' };
    case 'TemplateDeleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted' };
    default: {
      const unknown: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

function uniqueKeys(state: TemplateState): UniqueKey[] {
  if (state.status !== 'active') return [];
  const { name, template } = state.fields;
  return [
    { key: `template-name:${name.toLowerCase()}`, field: 'name', message: `a template named "${name}" already exists` },
    { key: `template-slug:${template}`, field: 'template', message: `a template with the slug "${template}" already exists` },
  ];
}

function references(state: TemplateState): Ref[] {
  if (state.status !== 'active') return [];
  return [
    ...state.fields.parentIds.map((id, index) => ({ kind: 'template', id, field: 'parentIds', index })),
    ...state.fields.executorIds.map((id, index) => ({ kind: 'executor', id, field: 'executorIds', index })),
  ];
}

export const templateAggregate: Aggregate<TemplateCommand, TemplateEvent, TemplateState> = defineAggregate('template', {
  initialState: { status: 'absent' },
  decide,
  evolve,
  uniqueKeys,
  references,
});
