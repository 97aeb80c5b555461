import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import { templateAggregate, type TemplateCommand } from '../../src/commands/template.js';
import type { TemplateEvent, TemplateFields } from '../../src/events/template.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(templateAggregate);

const ID = '11111111-1111-4111-8111-111111111111';
const PARENT = '22222222-2222-4222-8222-222222222222';
const OTHER_PARENT = '33333333-3333-4333-8333-333333333333';
const EXECUTOR = '44444444-4444-4444-8444-444444444444';

const fields: TemplateFields = {
  ownerId: null,
  name: 'Web App',
  template: 'web_app',
  description: 'a web application',
  labels: ['prod'],
  abstract: false,
  cloudResourceTypes: ['aws_instance'],
  configuration: { size: 'small' },
  documentationUrl: null,
  executorIds: [EXECUTOR],
  parentIds: [PARENT],
};

const createTemplate: TemplateCommand = { type: 'Create', data: { id: ID, status: 'enabled', ...fields } };
const created: TemplateEvent = { type: 'TemplateCreated', data: { id: ID, status: 'enabled', ...fields } };
const createdDisabled: TemplateEvent = { type: 'TemplateCreated', data: { id: ID, status: 'disabled', ...fields } };
const enabled: TemplateEvent = { type: 'TemplateEnabled', data: {} };
const disabled: TemplateEvent = { type: 'TemplateDisabled', data: {} };
const deleted: TemplateEvent = { type: 'TemplateDeleted', data: {} };
const update = (changes: Extract<TemplateCommand, { type: 'Update' }>['data']['changes']): TemplateCommand => ({
  type: 'Update',
  data: { changes },
});
const updated = (changes: Extract<TemplateEvent, { type: 'TemplateUpdated' }>['data']['changes']): TemplateEvent => ({
  type: 'TemplateUpdated',
  data: { changes },
});
const deleteTemplate = (): TemplateCommand => ({ type: 'Delete' });

const NOT_FOUND = { code: 'NOT_FOUND', message: 'template not found' } as const;
const SELF_PARENT = {
  code: 'UNPROCESSABLE',
  message: 'a template cannot be its own parent',
  errors: [{ field: 'parentIds', message: 'a template cannot be its own parent' }],
} as const;

describe('template decider', () => {
  describe('when creating a template', () => {
    it('records TemplateCreated with every field, the id and the status', () => {
      spec.given([]).when(createTemplate).then([created]);
    });

    it('records a template created disabled as disabled', () => {
      spec
        .given([])
        .when({ type: 'Create', data: { id: ID, status: 'disabled', ...fields } })
        .then([createdDisabled]);
    });

    it('refuses to create the same template twice with CONFLICT', () => {
      spec
        .given([created])
        .when(createTemplate)
        .thenThrows({ code: 'ALREADY_EXISTS', message: `template ${ID} already exists` });
    });

    it('refuses to create a template again after it was deleted', () => {
      spec
        .given([created, deleted])
        .when(createTemplate)
        .thenThrows({ code: 'ALREADY_EXISTS', message: `template ${ID} already exists` });
    });

    it('refuses its own id among the parents with UNPROCESSABLE naming parentIds', () => {
      spec
        .given([])
        .when({ type: 'Create', data: { id: ID, status: 'enabled', ...fields, parentIds: [PARENT, ID] } })
        .thenThrows(SELF_PARENT);
    });
  });

  describe('when updating a template', () => {
    it('records only the fields whose values change', () => {
      spec
        .given([created])
        .when(update({ name: 'Web App 2', description: fields.description, labels: ['prod'], abstract: true }))
        .then([updated({ name: 'Web App 2', abstract: true })]);
    });

    it('records a changed list and a changed configuration', () => {
      spec
        .given([created])
        .when(update({ labels: ['prod', 'eu'], configuration: { size: 'large' }, parentIds: [PARENT, OTHER_PARENT], executorIds: [] }))
        .then([updated({ labels: ['prod', 'eu'], configuration: { size: 'large' }, parentIds: [PARENT, OTHER_PARENT], executorIds: [] })]);
    });

    it('decides on the state after earlier updates', () => {
      spec
        .given([created, updated({ name: 'Renamed' })])
        .when(update({ name: 'Renamed' }))
        .then([]);
    });

    it('records nothing when no value changes (a no-op PATCH)', () => {
      spec
        .given([created])
        .when(update({ ...fields }))
        .then([]);
    });

    it('records nothing for an empty change set', () => {
      spec.given([created]).when(update({})).then([]);
    });

    it('accepts the current slug and records nothing for it', () => {
      spec
        .given([created])
        .when(update({ template: 'web_app', name: 'Other' }))
        .then([updated({ name: 'Other' })]);
    });

    it('refuses a different slug with UNPROCESSABLE naming template and the current slug', () => {
      spec
        .given([created])
        .when(update({ template: 'other_slug' }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'template is immutable (it is "web_app")',
          errors: [{ field: 'template', message: 'template is immutable (it is "web_app")' }],
        });
    });

    it('refuses its own id among the parents with UNPROCESSABLE naming parentIds', () => {
      spec
        .given([created])
        .when(update({ parentIds: [ID] }))
        .thenThrows(SELF_PARENT);
    });

    it('refuses an unknown template with NOT_FOUND', () => {
      spec
        .given([])
        .when(update({ name: 'x' }))
        .thenThrows(NOT_FOUND);
    });

    it('refuses a deleted template with NOT_FOUND', () => {
      spec
        .given([created, deleted])
        .when(update({ name: 'x' }))
        .thenThrows(NOT_FOUND);
    });
  });

  describe('when enabling a template', () => {
    it('records TemplateEnabled for a disabled template', () => {
      spec.given([createdDisabled]).when({ type: 'Enable' }).then([enabled]);
    });

    it('records TemplateEnabled after a disable', () => {
      spec.given([created, disabled]).when({ type: 'Enable' }).then([enabled]);
    });

    it('records nothing for a template that is already enabled', () => {
      spec.given([created]).when({ type: 'Enable' }).then([]);
      spec.given([created, disabled, enabled]).when({ type: 'Enable' }).then([]);
    });

    it('refuses an unknown template with NOT_FOUND', () => {
      spec.given([]).when({ type: 'Enable' }).thenThrows(NOT_FOUND);
    });

    it('refuses a deleted template with NOT_FOUND', () => {
      spec.given([createdDisabled, deleted]).when({ type: 'Enable' }).thenThrows(NOT_FOUND);
    });
  });

  describe('when disabling a template', () => {
    it('records TemplateDisabled for an enabled template', () => {
      spec.given([created]).when({ type: 'Disable' }).then([disabled]);
    });

    it('records nothing for a template that is already disabled', () => {
      spec.given([createdDisabled]).when({ type: 'Disable' }).then([]);
      spec.given([created, disabled]).when({ type: 'Disable' }).then([]);
    });

    it('refuses an unknown template with NOT_FOUND', () => {
      spec.given([]).when({ type: 'Disable' }).thenThrows(NOT_FOUND);
    });

    it('refuses a deleted template with NOT_FOUND', () => {
      spec.given([created, deleted]).when({ type: 'Disable' }).thenThrows(NOT_FOUND);
    });
  });

  describe('when deleting a template', () => {
    it('records TemplateDeleted when nothing refers to it', () => {
      spec.given([created]).when(deleteTemplate()).then([deleted]);
    });

    it('deletes a disabled template too', () => {
      spec.given([created, disabled]).when(deleteTemplate()).then([deleted]);
    });

    it('refuses an unknown template with NOT_FOUND', () => {
      spec.given([]).when(deleteTemplate()).thenThrows(NOT_FOUND);
    });

    it('refuses to delete a deleted template again with NOT_FOUND', () => {
      spec.given([created, deleted]).when(deleteTemplate()).thenThrows(NOT_FOUND);
    });
  });

  describe('when listing the unique values a template holds', () => {
    const keysOf = (events: readonly TemplateEvent[]) => templateAggregate.uniqueKeys(fold(templateAggregate, events));

    it('holds its lower-cased name and its slug while it exists', () => {
      expect(keysOf([created])).toEqual([
        { key: 'template-name:web app', field: 'name', message: 'a template named "Web App" already exists' },
        { key: 'template-slug:web_app', field: 'template', message: 'a template with the slug "web_app" already exists' },
      ]);
    });

    it('follows a rename', () => {
      expect(keysOf([created, updated({ name: 'NEW Name' })]).map((k) => k.key)).toEqual([
        'template-name:new name',
        'template-slug:web_app',
      ]);
    });

    it('keeps holding both while disabled', () => {
      expect(keysOf([created, disabled]).map((k) => k.key)).toEqual(['template-name:web app', 'template-slug:web_app']);
    });

    it('holds nothing before it is created', () => {
      expect(keysOf([])).toEqual([]);
    });

    it('holds nothing once deleted', () => {
      expect(keysOf([created, deleted])).toEqual([]);
    });
  });

  describe('when listing the entities a template refers to', () => {
    const refsOf = (events: readonly TemplateEvent[]) => templateAggregate.references(fold(templateAggregate, events));

    it('names each parent and executor with its field and index', () => {
      const withRefs = {
        ...created,
        data: { ...created.data, parentIds: [PARENT, OTHER_PARENT], executorIds: [OTHER_PARENT] },
      } as TemplateEvent;
      expect(refsOf([withRefs])).toEqual([
        { kind: 'template', id: PARENT, field: 'parentIds', index: 0 },
        { kind: 'template', id: OTHER_PARENT, field: 'parentIds', index: 1 },
        { kind: 'executor', id: OTHER_PARENT, field: 'executorIds', index: 0 },
      ]);
    });

    it('refers to nothing once deleted, and is then deleted', () => {
      const state = fold(templateAggregate, [created, deleted]);
      expect(templateAggregate.references(state)).toEqual([]);
      expect(templateAggregate.isDeleted(state)).toBe(true);
      expect(templateAggregate.isDeleted(fold(templateAggregate, [created]))).toBe(false);
    });
  });

  describe('when naming streams', () => {
    it('builds the stream id from the template id', () => {
      expect(templateAggregate.streamId(ID)).toBe(`template-${ID}`);
    });
  });
});
