import { describe, expect, it } from 'vitest';
import type { CatalogCommand, CatalogState } from '../../src/commands/catalog-entity.js';
import { fold, type Aggregate } from '../../src/commands/decider.js';
import { aggregateOf } from '../../src/commands/declared.js';
import { secretAggregate } from '../../src/commands/secret.js';
import type { DomainEvent } from '../../src/events/codec.js';
import type { SecretFields } from '../../src/events/secret.js';
import type { StoredFields } from '../../src/model/entity.js';
import { workspaceEntity } from '../../src/model/workspace.js';
import { deciderSpec } from '../support/decider-spec.js';

const ID = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const INTEGRATION = '6f6d2c9e-4f7b-4d8e-9a51-0c1d2e3f4a5b';
const OTHER_INTEGRATION = '7a7e3daf-5a8c-4e9f-8b62-1d2e3f4a5b6c';

describe('a secret', () => {
  const aws: SecretFields = {
    ownerId: null,
    name: 'DB Password',
    secretProvider: 'aws',
    secretType: 'tofu',
    configuration: { name: 'prod/db', awsRegion: 'eu-west-1' },
    integrationId: INTEGRATION,
    description: '',
    labels: [],
  };
  const custom: SecretFields = {
    ...aws,
    name: 'Tokens',
    secretProvider: 'custom',
    configuration: { secrets: [{ name: 'A', value: 'x' }] },
    integrationId: null,
  };
  const created = (fields: SecretFields): DomainEvent => ({ type: 'SecretCreated', data: { ...fields, id: ID, status: 'enabled' } });
  const create = (fields: SecretFields): CatalogCommand<SecretFields> => ({
    type: 'Create',
    data: { ...fields, id: ID, status: 'enabled' },
  });
  const update = (changes: Partial<SecretFields>): CatalogCommand<SecretFields> => ({ type: 'Update', data: { changes } });
  const spec = deciderSpec(secretAggregate);
  const missingIntegration = {
    code: 'UNPROCESSABLE' as const,
    message: 'integrationId is required for aws secrets (only custom secrets may go without)',
    errors: [{ field: 'integrationId', message: 'integrationId is required for aws secrets (only custom secrets may go without)' }],
  };

  describe('when created', () => {
    it('records SecretCreated for a cloud secret with its integration', () => {
      spec
        .given([])
        .when(create(aws))
        .then([created(aws)]);
    });

    it('lets a custom secret go without an integration', () => {
      spec
        .given([])
        .when(create(custom))
        .then([created(custom)]);
    });

    it('refuses an aws secret without an integration, naming integrationId', () => {
      spec
        .given([])
        .when(create({ ...aws, integrationId: null }))
        .thenThrows(missingIntegration);
    });
  });

  describe('when updated', () => {
    it('refuses to change the provider, naming it', () => {
      spec
        .given([created(aws)])
        .when(update({ secretProvider: 'gcp' }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'secretProvider is immutable (it is "aws")',
          errors: [{ field: 'secretProvider', message: 'secretProvider is immutable (it is "aws")' }],
        });
    });

    it('refuses to drop the integration of an aws secret, and lets a custom one drop it', () => {
      spec
        .given([created(aws)])
        .when(update({ integrationId: null }))
        .thenThrows(missingIntegration);
      const linked = { ...custom, integrationId: INTEGRATION };
      spec
        .given([created(linked)])
        .when(update({ integrationId: null }))
        .then([{ type: 'SecretUpdated', data: { changes: { integrationId: null } } }]);
    });
  });

  describe('when asked what it holds', () => {
    it('holds its lower-cased name while it exists, nothing once deleted', () => {
      expect(secretAggregate.uniqueKeys(fold(secretAggregate, [created(aws)]))).toEqual([
        { key: 'secret-name:db password', field: 'name', message: 'a secret named "DB Password" already exists' },
      ]);
      expect(secretAggregate.uniqueKeys(fold(secretAggregate, [created(aws), { type: 'SecretDeleted', data: {} }]))).toEqual([]);
    });

    it('refers to its integration through integrationId, and to nothing without one', () => {
      expect(secretAggregate.references(fold(secretAggregate, [created(aws)]))).toEqual([
        { kind: 'integration', id: INTEGRATION, field: 'integrationId' },
      ]);
      expect(secretAggregate.references(fold(secretAggregate, [created(custom)]))).toEqual([]);
    });
  });
});

type WorkspaceFields = StoredFields<typeof workspaceEntity>;
/** The write model its declaration alone gives (src/commands/declared.ts), typed for the specification. */
const workspaceAggregate = aggregateOf(workspaceEntity) as unknown as Aggregate<
  CatalogCommand<WorkspaceFields>,
  DomainEvent,
  CatalogState<WorkspaceFields>
>;

describe('a workspace', () => {
  const fields: WorkspaceFields = {
    ownerId: null,
    name: 'Platform',
    workspaceProvider: 'github',
    configuration: { url: 'https://github.com/acme', defaultBranch: 'main' },
    integrationId: INTEGRATION,
    description: '',
    labels: [],
  };
  const created: DomainEvent = { type: 'WorkspaceCreated', data: { ...fields, id: ID, status: 'enabled' } };
  const update = (changes: Partial<WorkspaceFields>): CatalogCommand<WorkspaceFields> => ({ type: 'Update', data: { changes } });
  const spec = deciderSpec(workspaceAggregate);

  it('records WorkspaceCreated', () => {
    spec
      .given([])
      .when({ type: 'Create', data: { ...fields, id: ID, status: 'enabled' } })
      .then([created]);
  });

  it('refuses to change the provider, naming it', () => {
    spec
      .given([created])
      .when(update({ workspaceProvider: 'bitbucket' }))
      .thenThrows({
        code: 'UNPROCESSABLE',
        message: 'workspaceProvider is immutable (it is "github")',
        errors: [{ field: 'workspaceProvider', message: 'workspaceProvider is immutable (it is "github")' }],
      });
  });

  it('moves to another integration, taking its name along', () => {
    spec
      .given([created])
      .when(update({ integrationId: OTHER_INTEGRATION }))
      .then([{ type: 'WorkspaceUpdated', data: { changes: { integrationId: OTHER_INTEGRATION } } }]);
    const moved = fold(workspaceAggregate, [
      created,
      { type: 'WorkspaceUpdated', data: { changes: { integrationId: OTHER_INTEGRATION } } },
    ]);
    expect(workspaceAggregate.uniqueKeys(moved).map((k) => k.key)).toEqual([`workspace-name:${OTHER_INTEGRATION}:platform`]);
    expect(workspaceAggregate.references(moved)).toEqual([{ kind: 'integration', id: OTHER_INTEGRATION, field: 'integrationId' }]);
  });

  it('holds its lower-cased name within its integration', () => {
    expect(workspaceAggregate.uniqueKeys(fold(workspaceAggregate, [created]))).toEqual([
      {
        key: `workspace-name:${INTEGRATION}:platform`,
        field: 'name',
        message: `a workspace named "Platform" already exists for integration ${INTEGRATION}`,
      },
    ]);
  });

  it('refers to its integration through integrationId', () => {
    expect(workspaceAggregate.references(fold(workspaceAggregate, [created]))).toEqual([
      { kind: 'integration', id: INTEGRATION, field: 'integrationId' },
    ]);
  });
});
