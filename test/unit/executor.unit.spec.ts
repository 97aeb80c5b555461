import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import { executorAggregate } from '../../src/commands/executor.js';
import type { LifecycleCommand } from '../../src/commands/lifecycle-entity.js';
import type { DomainEvent } from '../../src/events/codec.js';
import { executorEvents, type ExecutorFields } from '../../src/events/executor.js';
import { deciderSpec } from '../support/decider-spec.js';

const EXECUTOR_ID = '3f1e2d4c-5b6a-4978-8a1b-2c3d4e5f6a7b';
const SOURCE_CODE_ID = '0b0c6a52-2f0e-4a53-9d7e-2a1d6f3c9e01';
const STORAGE_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const INTEGRATION_A = 'a3c1e5f7-9b2d-4f6a-8c0e-1d3f5a7b9c2e';
const INTEGRATION_B = 'b4d2f6a8-0c3e-4a7b-9d1f-2e4a6b8c0d3f';
const SECRET_ID = 'c7e9a1b3-d5f7-4a9c-b1d3-e5f7a9c1b3d5';

const executor: ExecutorFields = {
  ownerId: null,
  name: 'Tofu EU',
  runtime: 'tofu',
  commandArgs: '-parallelism=4',
  sourceCodeVersion: 'v1.2.0',
  sourceCodeBranch: null,
  sourceCodeFolder: 'executors/eu',
  storagePath: 'state/eu',
  sourceCodeId: SOURCE_CODE_ID,
  storageId: STORAGE_ID,
  integrationIds: [INTEGRATION_A, INTEGRATION_B],
  secretIds: [SECRET_ID],
  description: '',
  labels: [],
};
const created: DomainEvent = { type: 'ExecutorCreated', data: { ...executor, id: EXECUTOR_ID, state: 'provision', status: 'ready' } };
const create = (fields: Partial<ExecutorFields> = {}): LifecycleCommand<ExecutorFields> => ({
  type: 'Create',
  data: { ...executor, ...fields, id: EXECUTOR_ID, approvalFlow: true },
});
const update = (changes: Partial<ExecutorFields>): LifecycleCommand<ExecutorFields> => ({
  type: 'Update',
  data: { changes, approvalFlow: true },
});

const executors = deciderSpec(executorAggregate);
const bothRefs = {
  code: 'UNPROCESSABLE' as const,
  message:
    'sourceCodeVersion must not be set together with sourceCodeBranch; sourceCodeBranch must not be set together with sourceCodeVersion',
  errors: [
    { field: 'sourceCodeVersion', message: 'sourceCodeVersion must not be set together with sourceCodeBranch' },
    { field: 'sourceCodeBranch', message: 'sourceCodeBranch must not be set together with sourceCodeVersion' },
  ],
};

describe('an executor', () => {
  describe('when created', () => {
    it('starts ready to provision, without waiting for approval even when the approval flow is on', () => {
      executors.given([]).when(create()).then([created]);
    });

    it('accepts a branch instead of a tag, or neither', () => {
      executors
        .given([])
        .when(create({ sourceCodeVersion: null, sourceCodeBranch: 'main' }))
        .then([
          {
            type: 'ExecutorCreated',
            data: { ...executor, sourceCodeVersion: null, sourceCodeBranch: 'main', id: EXECUTOR_ID, state: 'provision', status: 'ready' },
          },
        ]);
      executors
        .given([])
        .when(create({ sourceCodeVersion: null }))
        .then([
          { type: 'ExecutorCreated', data: { ...executor, sourceCodeVersion: null, id: EXECUTOR_ID, state: 'provision', status: 'ready' } },
        ]);
    });

    it('refuses a tag together with a branch, naming both fields', () => {
      executors
        .given([])
        .when(create({ sourceCodeBranch: 'main' }))
        .thenThrows(bothRefs);
    });

    it('refuses a repeated integration or secret, naming its index', () => {
      executors
        .given([])
        .when(create({ integrationIds: [INTEGRATION_A, INTEGRATION_A], secretIds: [SECRET_ID, SECRET_ID] }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: `integrationIds must not repeat ${INTEGRATION_A}; secretIds must not repeat ${SECRET_ID}`,
          errors: [
            { field: 'integrationIds[1]', message: `integrationIds must not repeat ${INTEGRATION_A}` },
            { field: 'secretIds[1]', message: `secretIds must not repeat ${SECRET_ID}` },
          ],
        });
    });
  });

  describe('when updated', () => {
    it('refuses a branch added to an executor pinned to a tag', () => {
      executors
        .given([created])
        .when(update({ sourceCodeBranch: 'main' }))
        .thenThrows(bothRefs);
    });

    it('moves from a tag to a branch when the tag is cleared in the same change', () => {
      executors
        .given([created])
        .when(update({ sourceCodeVersion: null, sourceCodeBranch: 'main' }))
        .then([{ type: 'ExecutorUpdated', data: { changes: { sourceCodeVersion: null, sourceCodeBranch: 'main' } } }]);
    });
  });

  describe('when acting', () => {
    it('refuses approve, which executors do not have, with the allowed actions', () => {
      executors
        .given([created])
        .when({ type: 'Act', data: { action: 'approve', approvalFlow: true } })
        .thenThrows({
          code: 'ILLEGAL_TRANSITION',
          message: 'cannot approve an executor in state provision with status ready; allowed: execute, delete',
          details: { currentState: 'provision', currentStatus: 'ready', allowedActions: ['execute', 'delete'] },
        });
    });
  });

  describe('when its references and unique key are read', () => {
    it('points at its source code, storage, and each integration and secret by index', () => {
      expect(executorAggregate.references(fold(executorAggregate, [created]))).toEqual([
        { kind: 'source_code', id: SOURCE_CODE_ID, field: 'sourceCodeId' },
        { kind: 'storage', id: STORAGE_ID, field: 'storageId' },
        { kind: 'integration', id: INTEGRATION_A, field: 'integrationIds', index: 0 },
        { kind: 'integration', id: INTEGRATION_B, field: 'integrationIds', index: 1 },
        { kind: 'secret', id: SECRET_ID, field: 'secretIds', index: 0 },
      ]);
    });

    it('points at no storage when it has none, and at nothing once deleted', () => {
      const noStorage: DomainEvent = { type: 'ExecutorUpdated', data: { changes: { storageId: null, integrationIds: [], secretIds: [] } } };
      expect(executorAggregate.references(fold(executorAggregate, [created, noStorage]))).toEqual([
        { kind: 'source_code', id: SOURCE_CODE_ID, field: 'sourceCodeId' },
      ]);
      expect(executorAggregate.references(fold(executorAggregate, [created, { type: 'ExecutorDeleted', data: {} }]))).toEqual([]);
    });

    it('holds its name case-insensitively, and releases it once deleted', () => {
      expect(executorAggregate.uniqueKeys(fold(executorAggregate, [created]))).toEqual([
        { key: 'executor-name:tofu eu', field: 'name', message: 'an executor named "Tofu EU" already exists' },
      ]);
      expect(executorAggregate.uniqueKeys(fold(executorAggregate, [created, { type: 'ExecutorDeleted', data: {} }]))).toEqual([]);
    });
  });

  it('declares the four lifecycle events', () => {
    expect(executorEvents.map((d) => d.type)).toEqual(['ExecutorCreated', 'ExecutorUpdated', 'ExecutorTransitioned', 'ExecutorDeleted']);
  });
});
