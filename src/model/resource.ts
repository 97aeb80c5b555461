import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { entityName, nonEmpty, uniquelyNamed, ownerIdField } from './inputs.js';

/** One input variable of a resource, as stored; `value` is any JSON a tofu variable takes. */
export const resourceVariable = z.object({ name: z.string(), value: z.unknown(), sensitive: z.boolean() });

/** One input variable of a resource. */
export type ResourceVariable = z.infer<typeof resourceVariable>;

const jsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
const variablesInput = uniquelyNamed(
  z.strictObject({ name: entityName, value: jsonValue, sensitive: z.boolean().default(false) }),
  500,
  'at most 500 variables',
  'variable name',
);

const resourceRelation = (name: string, type: string, description: string) => ({ name, type, description });

/**
 * Resources: infrastructure requested from a template and moved through the approval and run
 * lifecycle (docs/contract.md §2–§3). `abstract` is copied from the template and `creatorId` is the
 * requester (owner actions are theirs): both are set by the service. Every variable value is
 * encrypted in events; read models mask only the sensitive ones.
 */
export const resourceEntity = {
  name: 'Resource',
  kind: 'resource',
  plural: 'resources',
  table: 'resources',
  description: 'A piece of infrastructure requested from a template, moved through the approval and run lifecycle.',
  lifecycle: { approvals: true, outputs: true },
  fields: {
    name: {
      kind: 'text',
      description: 'Name, unique per template.',
      input: entityName,
      required: true,
      search: true,
      unique: {
        key: 'resource-name',
        caseInsensitive: true,
        scope: 'templateId',
        message: (name: string) => `a resource named "${name}" already exists for this template`,
      },
    },
    abstract: {
      kind: 'boolean',
      description: 'Copied from the template: an abstract resource groups others.',
      writable: false,
      immutable: true,
    },
    variables: {
      kind: 'json',
      deploys: true,
      description: 'Input values: a list of `{name, value, sensitive}`; sensitive values are shown as `********`.',
      input: variablesInput,
      stored: z.array(resourceVariable),
      default: [],
    },
    storagePath: {
      kind: 'text',
      deploys: true,
      description: 'The path of the state inside the storage.',
      input: nonEmpty(1000),
      nullable: true,
      default: null,
    },
    templateId: {
      kind: 'id',
      description: 'The template it was requested from.',
      target: 'template',
      required: true,
      immutable: true,
      relation: resourceRelation('template', 'Template', 'The template it was requested from.'),
    },
    sourceCodeVersionId: {
      kind: 'id',
      deploys: true,
      description: 'The code version it runs (null for abstract resources).',
      target: 'source_code_version',
      nullable: true,
      default: null,
      relation: resourceRelation('sourceCodeVersion', 'SourceCodeVersion', 'The code version it runs (null for abstract resources).'),
    },
    storageId: {
      kind: 'id',
      deploys: true,
      description: 'Where its state is kept.',
      target: 'storage',
      nullable: true,
      default: null,
      relation: resourceRelation('storage', 'Storage', 'Where its state is kept.'),
    },
    workspaceId: {
      kind: 'id',
      deploys: true,
      description: 'The workspace it is delivered to.',
      target: 'workspace',
      nullable: true,
      default: null,
      relation: resourceRelation('workspace', 'Workspace', 'The workspace it is delivered to.'),
    },
    integrationIds: {
      kind: 'idList',
      deploys: true,
      description: 'The ids of the integrations its runs receive.',
      target: 'integration',
      default: [],
      link: { table: 'resource_integrations', ownerColumn: 'resource_id', targetColumn: 'integration_id' },
      filterAs: 'integrationId',
      relation: resourceRelation('integrationIds', 'Integration', 'The integrations its runs receive.'),
    },
    secretIds: {
      kind: 'idList',
      deploys: true,
      description: 'The ids of the secrets its runs receive.',
      target: 'secret',
      default: [],
      link: { table: 'resource_secrets', ownerColumn: 'resource_id', targetColumn: 'secret_id' },
      filterAs: 'secretId',
      relation: resourceRelation('secretIds', 'Secret', 'The secrets its runs receive.'),
    },
    parentIds: {
      kind: 'idList',
      deploys: true,
      description: 'The ids of the resources it belongs to.',
      target: 'resource',
      default: [],
      link: { table: 'resource_parents', ownerColumn: 'resource_id', targetColumn: 'parent_id' },
      filterAs: 'parentId',
      relation: resourceRelation('parents', 'Resource', 'The resources it belongs to.'),
    },
    // The common `creatorId`, carried in the events too: owner actions are the requester's.
    creatorId: { kind: 'text', description: 'Who requested it (the common creator).', nullable: true, writable: false, immutable: true },
    ownerId: ownerIdField(2),
  },
  secrets: {
    paths: ['variables[].value'],
    when: (variable: Readonly<Record<string, unknown>>) => variable.sensitive === true,
    restoreMessage: 'is write-only: send the value itself, not ******** (no stored sensitive variable has this name)',
  },
} as const satisfies EntityDeclaration;
