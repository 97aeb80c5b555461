import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/decider.js';
import type { LifecycleCommand } from '../../src/commands/lifecycle-entity.js';
import type { Lineage, RelativeFact } from '../../src/commands/lineage.js';
import type { LifecycleState, LifecycleStatus } from '../../src/model/lifecycle.js';
import { resourceAggregate } from '../../src/commands/resource.js';
import type { DomainEvent } from '../../src/events/codec.js';
import type { ResourceFields } from '../../src/events/resource.js';
import { redactSecrets } from '../../src/events/secret-fields.js';
import { deployFieldsOf } from '../../src/model/entity.js';
import { resourceEntity } from '../../src/model/resource.js';

/** What the resources projection stores: the declaration's write-only paths, masked only for sensitive variables. */
const maskSensitiveVariables = (fields: Record<string, unknown>) =>
  redactSecrets(fields, resourceEntity.secrets.paths, { when: resourceEntity.secrets.when });
import { deciderSpec } from '../support/decider-spec.js';

const ID = '0b7f1c2a-3d4e-4f50-8a61-7b8c9d0e1f20';
const TEMPLATE = '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
const PARENT = '2d3e4f5a-6b7c-4d8e-9fa0-b1c2d3e4f5a6';
const VERSION = '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7';
const fields: ResourceFields = {
  ownerId: null,
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
      spec
        .given([])
        .when(create({}, false))
        .then([{ ...created, data: { ...created.data, status: 'ready' } }]);
    });

    it('needs a source code version unless its template is abstract', () => {
      spec
        .given([])
        .when(create({ abstract: false }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'sourceCodeVersionId is required unless the template is abstract',
          errors: [{ field: 'sourceCodeVersionId', message: 'sourceCodeVersionId is required unless the template is abstract' }],
        });
      spec
        .given([])
        .when(create({ abstract: false, sourceCodeVersionId: VERSION }))
        .then([{ ...created, data: { ...created.data, abstract: false, sourceCodeVersionId: VERSION } }]);
    });

    it('cannot be its own parent', () => {
      spec
        .given([])
        .when(create({ parentIds: [ID] }))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'a resource cannot be its own parent',
          errors: [{ field: 'parentIds', message: 'a resource cannot be its own parent' }],
        });
    });
  });

  describe('when updated', () => {
    it('keeps its template, its abstract flag and its creator', () => {
      spec
        .given([created])
        .when({ type: 'Update', data: { changes: { templateId: PARENT }, approvalFlow: true } })
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: `templateId is immutable (it is "${TEMPLATE}")`,
          errors: [{ field: 'templateId', message: `templateId is immutable (it is "${TEMPLATE}")` }],
        });
      spec
        .given([created])
        .when({ type: 'Update', data: { changes: { creatorId: 'someone-else' }, approvalFlow: true } })
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'creatorId is immutable (it is "creator")',
          errors: [{ field: 'creatorId', message: 'creatorId is immutable (it is "creator")' }],
        });
    });
  });

  describe('when what was approved changes (changes after approval are a new request)', () => {
    const approved: DomainEvent = { type: 'ResourceTransitioned', data: { action: 'approve', state: 'provision', status: 'ready' } };
    const provisioned: DomainEvent[] = [
      created,
      approved,
      { type: 'ResourceTransitioned', data: { action: 'execute', state: 'provision', status: 'queued' } },
      { type: 'ResourceTransitioned', data: { action: 'start', state: 'provision', status: 'in_progress' } },
      { type: 'ResourceTransitioned', data: { action: 'succeed', state: 'provisioned', status: 'done', outputs: {} } },
    ];
    const change = (changes: Partial<ResourceFields>, approvalFlow = true): LifecycleCommand<ResourceFields> => ({
      type: 'Update',
      data: { changes, approvalFlow },
    });
    const variables = [{ name: 'size', value: 'xl', sensitive: false }];
    const updated = (changes: Partial<ResourceFields>): DomainEvent => ({ type: 'ResourceUpdated', data: { changes } });
    const again = (state: LifecycleState, changedFields: string[]): DomainEvent => ({
      type: 'ResourceTransitioned',
      data: { action: 'change', state, status: 'approval_pending', changedFields },
    });

    it('sends an approved request back to approval, naming the deployed fields that changed', () => {
      spec
        .given([created, approved])
        .when(change({ variables, integrationIds: ['i1'], description: 'now bigger' }))
        .then([
          updated({ variables, integrationIds: ['i1'], description: 'now bigger' }),
          again('provision', ['variables', 'integrationIds']),
        ]);
    });

    it('sends a provisioned resource back to approval (its state stays provisioned)', () => {
      spec
        .given(provisioned)
        .when(change({ sourceCodeVersionId: VERSION }))
        .then([updated({ sourceCodeVersionId: VERSION }), again('provisioned', ['sourceCodeVersionId'])]);
    });

    it('refuses execute until the change is approved, and runs once it is', () => {
      const changed = [...provisioned, updated({ secretIds: ['s1'] }), again('provisioned', ['secretIds'])];
      spec
        .given(changed)
        .when({ type: 'Act', data: { action: 'execute', approvalFlow: true } })
        .thenThrows({
          code: 'ILLEGAL_TRANSITION',
          message: 'cannot execute a resource in state provisioned with status approval_pending; allowed: approve, reject',
          details: { currentState: 'provisioned', currentStatus: 'approval_pending', allowedActions: ['approve', 'reject'] },
        });
      const approvedChange: DomainEvent = {
        type: 'ResourceTransitioned',
        data: { action: 'approve', state: 'provisioned', status: 'ready' },
      };
      spec
        .given(changed)
        .when({ type: 'Act', data: { action: 'approve', approvalFlow: true } })
        .then([approvedChange]);
      spec
        .given([...changed, approvedChange])
        .when({ type: 'Act', data: { action: 'execute', approvalFlow: true } })
        .then([{ type: 'ResourceTransitioned', data: { action: 'execute', state: 'provisioned', status: 'queued' } }]);
    });

    it('leaves a rejected change undeployed: no execute, but destroy or another change', () => {
      const rejected = [
        ...provisioned,
        updated({ storagePath: 'elsewhere' }),
        again('provisioned', ['storagePath']),
        { type: 'ResourceTransitioned', data: { action: 'reject', state: 'provisioned', status: 'rejected' } } as DomainEvent,
      ];
      spec
        .given(rejected)
        .when({ type: 'Act', data: { action: 'execute', approvalFlow: true } })
        .thenThrows({
          code: 'ILLEGAL_TRANSITION',
          message: 'cannot execute a resource in state provisioned with status rejected; allowed: destroy',
          details: { currentState: 'provisioned', currentStatus: 'rejected', allowedActions: ['destroy'] },
        });
      spec
        .given(rejected)
        .when(change({ storagePath: 'back' }))
        .then([updated({ storagePath: 'back' }), again('provisioned', ['storagePath'])]);
    });

    it('keeps metadata free: a new description or labels change nothing else', () => {
      spec
        .given(provisioned)
        .when(change({ description: 'owned by payments', labels: ['prod'] }))
        .then([updated({ description: 'owned by payments', labels: ['prod'] })]);
    });

    it('keeps a request that still waits, or was refused, where it is', () => {
      spec
        .given([created])
        .when(change({ variables }))
        .then([updated({ variables })]);
      const refused: DomainEvent = { type: 'ResourceTransitioned', data: { action: 'reject', state: 'provision', status: 'rejected' } };
      spec
        .given([created, refused])
        .when(change({ variables }))
        .then([updated({ variables })]);
    });

    it('refuses a deployed field’s change while a run is queued or under way', () => {
      spec
        .given(provisioned.slice(0, 3))
        .when(change({ variables }))
        .thenThrows({
          code: 'ENTITY_BUSY',
          message: 'cannot change variables of a resource in state provision with status queued: wait until the run or request has ended',
          details: { currentState: 'provision', currentStatus: 'queued', changedFields: ['variables'] },
        });
    });

    it('changes freely when the approval flow is off', () => {
      spec
        .given([created, approved])
        .when(change({ variables }, false))
        .then([updated({ variables })]);
    });
  });

  it('lists in docs/contract.md exactly the fields its declaration marks as deployed', async () => {
    const contract = await readFile(new URL('../../docs/contract.md', import.meta.url), 'utf8');
    const line =
      contract.split('<!-- deploy-fields: kept equal to the declaration by test/unit/resource.unit.spec.ts -->\n')[1]?.split('\n')[0] ?? '';
    expect(line.split(', ').map((name) => name.replace(/`/g, ''))).toEqual(deployFieldsOf(resourceEntity));
  });

  describe('its write-model facts', () => {
    const state = fold(resourceAggregate, [created]);

    it('reserves its name per template, case-insensitively', () => {
      expect(resourceAggregate.uniqueKeys(state)).toEqual([
        {
          key: `resource-name:${TEMPLATE}:web cluster`,
          field: 'name',
          message: 'a resource named "Web Cluster" already exists for this template',
        },
      ]);
    });

    it('references its template, its optional relations and every list element', () => {
      const full = fold(resourceAggregate, [
        {
          type: 'ResourceCreated',
          data: {
            ...(created.data as object),
            sourceCodeVersionId: VERSION,
            storageId: 's',
            workspaceId: 'w',
            integrationIds: ['i1', 'i2'],
            secretIds: ['x'],
          },
        },
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

describe('a resource and its parents and children (lineage)', () => {
  const CHILD = '4f5a6b7c-8d9e-4fa0-b1c2-d3e4f5a6b7c8';
  const relative = (id: string, name: string, state: LifecycleState, status: LifecycleStatus): RelativeFact => ({
    id,
    name,
    state,
    status,
  });
  const parent = (state: LifecycleState, status: LifecycleStatus): RelativeFact => relative(PARENT, 'Network', state, status);
  const lineage = (parents: RelativeFact[], children: RelativeFact[] = []): Lineage => ({ parents, children });
  const withLineage = (l: Lineage): LifecycleCommand<ResourceFields> => ({
    type: 'Create',
    data: { ...fields, id: ID, approvalFlow: true, lineage: l },
  });
  const act = (action: 'destroy' | 'recreate', l: Lineage): LifecycleCommand<ResourceFields> => ({
    type: 'Act',
    data: { action, approvalFlow: false, lineage: l },
  });
  const provisioned: DomainEvent[] = [
    created,
    { type: 'ResourceTransitioned', data: { action: 'approve', state: 'provision', status: 'ready' } },
    { type: 'ResourceTransitioned', data: { action: 'execute', state: 'provision', status: 'queued' } },
    { type: 'ResourceTransitioned', data: { action: 'start', state: 'provision', status: 'in_progress' } },
    { type: 'ResourceTransitioned', data: { action: 'succeed', state: 'provisioned', status: 'done', outputs: {} } },
  ];
  const destroyed: DomainEvent[] = [
    ...provisioned,
    { type: 'ResourceTransitioned', data: { action: 'destroy', state: 'destroy', status: 'ready' } },
    { type: 'ResourceTransitioned', data: { action: 'execute', state: 'destroy', status: 'queued' } },
    { type: 'ResourceTransitioned', data: { action: 'start', state: 'destroy', status: 'in_progress' } },
    { type: 'ResourceTransitioned', data: { action: 'succeed', state: 'destroyed', status: 'done', outputs: {} } },
  ];

  describe('when requested under a parent', () => {
    it('is accepted while the parent is provisioned or still being provisioned', () => {
      spec
        .given([])
        .when(withLineage(lineage([parent('provisioned', 'done')])))
        .then([created]);
      spec
        .given([])
        .when(withLineage(lineage([parent('provision', 'approval_pending')])))
        .then([created]);
    });

    it('is refused, naming the parent, when the parent is destroyed', () => {
      spec
        .given([])
        .when(withLineage(lineage([parent('destroyed', 'done')])))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'parent "Network" is destroyed',
          errors: [{ field: 'parentIds[0]', message: 'parent "Network" is destroyed' }],
        });
    });

    it('is refused when the parent is being destroyed', () => {
      spec
        .given([])
        .when(withLineage(lineage([parent('destroy', 'in_progress')])))
        .thenThrows({
          code: 'UNPROCESSABLE',
          message: 'parent "Network" is being destroyed',
          errors: [{ field: 'parentIds[0]', message: 'parent "Network" is being destroyed' }],
        });
    });
  });

  describe('when recreated', () => {
    it('is refused while its parent is destroyed or being destroyed', () => {
      spec
        .given(destroyed)
        .when(act('recreate', lineage([parent('destroyed', 'done')])))
        .thenThrows({
          code: 'LINEAGE_CONFLICT',
          message: 'cannot recreate a resource under a destroyed or destroying parent: "Network" (destroyed/done)',
          details: { parents: [parent('destroyed', 'done')] },
        });
      spec
        .given(destroyed)
        .when(act('recreate', lineage([parent('destroy', 'ready')])))
        .thenThrows({
          code: 'LINEAGE_CONFLICT',
          message: 'cannot recreate a resource under a destroyed or destroying parent: "Network" (destroy/ready)',
          details: { parents: [parent('destroy', 'ready')] },
        });
    });

    it('goes ahead under a provisioned parent', () => {
      spec
        .given(destroyed)
        .when(act('recreate', lineage([parent('provisioned', 'done')])))
        .then([{ type: 'ResourceTransitioned', data: { action: 'recreate', state: 'provision', status: 'ready' } }]);
    });
  });

  describe('when destroyed', () => {
    it('is refused while a child is not destroyed, naming it', () => {
      const child = relative(CHILD, 'Subnet', 'provisioned', 'done');
      spec
        .given(provisioned)
        .when(act('destroy', lineage([], [child])))
        .thenThrows({
          code: 'LINEAGE_CONFLICT',
          message: 'cannot destroy a resource while its children are not destroyed: "Subnet" (provisioned/done)',
          details: { children: [child] },
        });
    });

    it('goes ahead once every child is destroyed', () => {
      spec
        .given(provisioned)
        .when(act('destroy', lineage([], [relative(CHILD, 'Subnet', 'destroyed', 'done')])))
        .then([{ type: 'ResourceTransitioned', data: { action: 'destroy', state: 'destroy', status: 'ready' } }]);
    });

    it('refuses an illegal transition before looking at its children', () => {
      spec
        .given(destroyed)
        .when(act('destroy', lineage([], [relative(CHILD, 'Subnet', 'provisioned', 'done')])))
        .thenThrows({
          code: 'ILLEGAL_TRANSITION',
          message: 'cannot destroy a resource in state destroyed with status done; allowed: recreate, delete',
        });
    });
  });
});
