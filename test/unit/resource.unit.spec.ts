import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import type { LifecycleCommand } from '../../src/commands/lifecycle-entity.js';
import { resourceAggregate } from '../../src/commands/resource.js';
import type { DomainEvent } from '../../src/events/codec.js';
import type { ResourceFields } from '../../src/events/resource.js';
import { maskSensitiveVariables } from '../../src/projections/resources.js';
import { deciderSpec } from '../support/decider-spec.js';

const ID = '0b7f1c2a-3d4e-4f50-8a61-7b8c9d0e1f20';
const TEMPLATE = '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
const PARENT = '2d3e4f5a-6b7c-4d8e-9fa0-b1c2d3e4f5a6';
const VERSION = '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7';
const fields: ResourceFields = {
  name: 'Web Cluster',
  abstract: true,
  variables: [{ name: 'password', value: 'hunter2', sensitive: true }],
  storagePath: null,
  templateId: TEMPLATE,
  sourceCodeVersionId: null,
  storageId: null,
  workspaceId: null,
  integrationIds: [],
  secretIds: [],
  parentIds: [PARENT],
  creatorId: 'creator',
  description: '',
  labels: [],
};
const create = (overrides: Partial<ResourceFields> = {}, approvalFlow = true): LifecycleCommand<ResourceFields> => ({
  type: 'Create',
  data: { ...fields, ...overrides, id: ID, approvalFlow },
});
const created: DomainEvent = { type: 'ResourceCreated', data: { ...fields, id: ID, state: 'provision', status: 'approval_pending' } };
const spec = deciderSpec(resourceAggregate);

describe('a resource', () => {
  describe('when requested', () => {
    it('waits for approval while the approval flow is on', () => {
      spec.given([]).when(create()).then([created]);
    });

    it('starts ready when the approval flow is off', () => {
      spec.given([]).when(create({}, false)).then([{ ...created, data: { ...created.data, status: 'ready' } }]);
    });

    it('needs a source code version unless its template is abstract', () => {
      spec.given([]).when(create({ abstract: false })).thenThrows({
        code: 'UNPROCESSABLE',
        message: 'sourceCodeVersionId is required unless the template is abstract',
        errors: [{ field: 'sourceCodeVersionId', message: 'sourceCodeVersionId is required unless the template is abstract' }],
      });
      spec.given([]).when(create({ abstract: false, sourceCodeVersionId: VERSION })).then([{ ...created, data: { ...created.data, abstract: false, sourceCodeVersionId: VERSION } }]);
    });

    it('cannot be its own parent', () => {
      spec.given([]).when(create({ parentIds: [ID] })).thenThrows({
        code: 'UNPROCESSABLE',
        message: 'a resource cannot be its own parent',
        errors: [{ field: 'parentIds', message: 'a resource cannot be its own parent' }],
      });
    });
  });

  describe('when updated', () => {
    it('keeps its template, its abstract flag and its creator', () => {
      spec.given([created]).when({ type: 'Update', data: { changes: { templateId: PARENT } } }).thenThrows({
        code: 'UNPROCESSABLE',
        message: `templateId is immutable (it is "${TEMPLATE}")`,
        errors: [{ field: 'templateId', message: `templateId is immutable (it is "${TEMPLATE}")` }],
      });
      spec.given([created]).when({ type: 'Update', data: { changes: { creatorId: 'someone-else' } } }).thenThrows({
        code: 'UNPROCESSABLE',
        message: 'creatorId is immutable (it is "creator")',
        errors: [{ field: 'creatorId', message: 'creatorId is immutable (it is "creator")' }],
      });
    });
  });

  describe('its write-model facts', () => {
    const state = fold(resourceAggregate, [created]);

    it('reserves its name per template, case-insensitively', () => {
      expect(resourceAggregate.uniqueKeys(state)).toEqual([
        { key: `resource-name:${TEMPLATE}:web cluster`, field: 'name', message: 'a resource named "Web Cluster" already exists for this template' },
      ]);
    });

    it('references its template, its optional relations and every list element', () => {
      const full = fold(resourceAggregate, [
        { type: 'ResourceCreated', data: { ...created.data as object, sourceCodeVersionId: VERSION, storageId: 's', workspaceId: 'w', integrationIds: ['i1', 'i2'], secretIds: ['x'] } },
      ]);
      expect(resourceAggregate.references(full)).toEqual([
        { kind: 'template', id: TEMPLATE, field: 'templateId' },
        { kind: 'source_code_version', id: VERSION, field: 'sourceCodeVersionId' },
        { kind: 'storage', id: 's', field: 'storageId' },
        { kind: 'workspace', id: 'w', field: 'workspaceId' },
        { kind: 'integration', id: 'i1', field: 'integrationIds', index: 0 },
        { kind: 'integration', id: 'i2', field: 'integrationIds', index: 1 },
        { kind: 'secret', id: 'x', field: 'secretIds', index: 0 },
        { kind: 'resource', id: PARENT, field: 'parentIds', index: 0 },
      ]);
    });

    it('references nothing once deleted', () => {
      const gone = fold(resourceAggregate, [created, { type: 'ResourceDeleted', data: {} }]);
      expect(resourceAggregate.references(gone)).toEqual([]);
      expect(resourceAggregate.uniqueKeys(gone)).toEqual([]);
    });
  });

  describe('in the read model', () => {
    it('masks only sensitive variable values', () => {
      const variables = [
        { name: 'password', value: 'hunter2', sensitive: true },
        { name: 'region', value: 'eu-west-1', sensitive: false },
      ];
      expect(maskSensitiveVariables({ variables })).toEqual({
        variables: [
          { name: 'password', value: '********', sensitive: true },
          { name: 'region', value: 'eu-west-1', sensitive: false },
        ],
      });
    });
  });
});
