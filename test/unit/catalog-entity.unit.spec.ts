import { describe, expect, it } from 'vitest';
import { catalogReferenceable, type CatalogCommand } from '../../src/commands/catalog-entity.js';
import { fold } from '../../src/commands/decider.js';
import { integrationAggregate } from '../../src/commands/integration.js';
import type { DomainEvent } from '../../src/events/codec.js';
import type { IntegrationFields } from '../../src/events/integration.js';
import { deciderSpec } from '../support/decider-spec.js';

const ID = '6f6d2c9e-4f7b-4d8e-9a51-0c1d2e3f4a5b';
const fields: IntegrationFields = {
  ownerId: null,
  name: 'Prod AWS',
  integrationType: 'cloud',
  integrationProvider: 'aws',
  configuration: { awsAccessKeyId: 'AKIA', awsSecretAccessKey: 's3cr3t', awsAccount: '123' },
  description: '',
  labels: [],
};
const created: DomainEvent = { type: 'IntegrationCreated', data: { ...fields, id: ID, status: 'enabled' } };
const disabled: DomainEvent = { type: 'IntegrationDisabled', data: {} };
const deleted: DomainEvent = { type: 'IntegrationDeleted', data: {} };
const update = (changes: Partial<IntegrationFields>): CatalogCommand<IntegrationFields> => ({ type: 'Update', data: { changes } });

const spec = deciderSpec(integrationAggregate);

describe('a catalog entity (the generic decider, through Integration)', () => {
  describe('when created', () => {
    it('records the Created event with its fields and status', () => {
      spec
        .given([])
        .when({ type: 'Create', data: { ...fields, id: ID, status: 'enabled' } })
        .then([created]);
    });

    it('refuses to create it twice', () => {
      spec
        .given([created])
        .when({ type: 'Create', data: { ...fields, id: ID, status: 'enabled' } })
        .thenThrows({ code: 'ALREADY_EXISTS', message: `integration ${ID} already exists` });
    });
  });

  describe('when updated', () => {
    it('records only what really changes', () => {
      spec
        .given([created])
        .when(update({ name: 'Prod AWS', description: 'main account' }))
        .then([{ type: 'IntegrationUpdated', data: { changes: { description: 'main account' } } }]);
    });

    it('writes nothing when nothing changes', () => {
      spec
        .given([created])
        .when(update({ name: 'Prod AWS' }))
        .then([]);
    });

    it('refuses to change an immutable field, naming it', () => {
      spec
        .given([created])
        .when(update({ integrationProvider: 'gcp' }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'integrationProvider is immutable (it is "aws")',
          errors: [{ field: 'integrationProvider', message: 'integrationProvider is immutable (it is "aws")' }],
        });
    });

    it('refuses an unknown or deleted entity with NOT_FOUND', () => {
      spec
        .given([])
        .when(update({ name: 'x' }))
        .thenThrows({ code: 'NOT_FOUND', message: 'integration not found' });
      spec
        .given([created, deleted])
        .when(update({ name: 'x' }))
        .thenThrows({ code: 'NOT_FOUND', message: 'integration not found' });
    });
  });

  describe('when enabled, disabled or deleted', () => {
    it('is idempotent for enable and disable', () => {
      spec.given([created]).when({ type: 'Enable' }).then([]);
      spec.given([created]).when({ type: 'Disable' }).then([disabled]);
      spec.given([created, disabled]).when({ type: 'Disable' }).then([]);
      spec
        .given([created, disabled])
        .when({ type: 'Enable' })
        .then([{ type: 'IntegrationEnabled', data: {} }]);
    });

    it('deletes, and then knows nothing of it', () => {
      spec.given([created]).when({ type: 'Delete' }).then([deleted]);
      spec.given([created, deleted]).when({ type: 'Delete' }).thenThrows({ code: 'NOT_FOUND', message: 'integration not found' });
    });
  });

  describe('when asked what it holds', () => {
    it('holds its lower-cased name while it exists, nothing once deleted', () => {
      expect(integrationAggregate.uniqueKeys(fold(integrationAggregate, [created])).map((k) => k.key)).toEqual([
        'integration-name:prod aws',
      ]);
      expect(integrationAggregate.uniqueKeys(fold(integrationAggregate, [created, deleted]))).toEqual([]);
      expect(integrationAggregate.isDeleted(fold(integrationAggregate, [created, deleted]))).toBe(true);
    });

    it('may be referenced only while enabled', () => {
      expect(catalogReferenceable(fold(integrationAggregate, [created]))).toBe('ok');
      expect(catalogReferenceable(fold(integrationAggregate, [created, disabled]))).toBe('disabled');
      expect(catalogReferenceable(fold(integrationAggregate, [created, deleted]))).toBe('missing');
      expect(catalogReferenceable(fold(integrationAggregate, []))).toBe('missing');
    });
  });
});
