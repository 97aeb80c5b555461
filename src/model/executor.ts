import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { gitRefName, repositoryFolder, uniqueNameField, ownerIdField } from './inputs.js';

/** The tools an executor can run modules with (docs/contract.md §2). */
export const EXECUTOR_RUNTIMES = ['tofu', 'terraform'] as const;

/**
 * Executors: how modules are run (docs/contract.md §2), provisioned through the lifecycle without
 * approval. At most one of `sourceCodeVersion` (a git tag) and `sourceCodeBranch` is set (a rule of
 * the write model); the two id lists keep the order the client gave.
 */
export const executorEntity = {
  name: 'Executor',
  kind: 'executor',
  plural: 'executors',
  table: 'executors',
  description: 'How code is run: the runtime, the code, the state storage and the credentials.',
  lifecycle: { approvals: false, outputs: false },
  fields: {
    name: uniqueNameField('executor-name', 'an executor'),
    runtime: { kind: 'enum', values: EXECUTOR_RUNTIMES, description: '`tofu` or `terraform`.', default: 'tofu' },
    commandArgs: {
      kind: 'text',
      description: 'Extra command-line arguments.',
      input: z.string().max(10_000, 'at most 10000 characters'),
      default: '',
    },
    sourceCodeVersion: {
      kind: 'text',
      description: 'The git tag to run (null when a branch is used).',
      input: gitRefName,
      nullable: true,
      default: null,
    },
    sourceCodeBranch: {
      kind: 'text',
      description: 'The git branch to run (null when a tag is used).',
      input: gitRefName,
      nullable: true,
      default: null,
    },
    sourceCodeFolder: { kind: 'text', description: 'The folder inside the repository.', input: repositoryFolder, default: '.' },
    storagePath: {
      kind: 'text',
      description: 'The path of the state inside the storage.',
      input: z.string().trim().max(1000, 'at most 1000 characters'),
      default: '',
    },
    sourceCodeId: {
      kind: 'id',
      description: 'The repository whose code runs.',
      target: 'source_code',
      required: true,
      relation: { name: 'sourceCode', type: 'SourceCode', description: 'The repository whose code runs.' },
    },
    storageId: {
      kind: 'id',
      description: 'Where the state is kept.',
      target: 'storage',
      nullable: true,
      default: null,
      relation: { name: 'storage', type: 'Storage', description: 'Where the state is kept.' },
    },
    integrationIds: {
      kind: 'idList',
      description: 'The ids of the integrations whose credentials the run receives, in order.',
      target: 'integration',
      default: [],
      link: { table: 'executor_integrations', ownerColumn: 'executor_id', targetColumn: 'integration_id' },
      filterAs: 'integrationId',
      relation: { name: 'integrationIds', type: 'Integration', description: 'The integrations whose credentials the run receives.' },
    },
    secretIds: {
      kind: 'idList',
      description: 'The ids of the secrets the run receives, in order.',
      target: 'secret',
      default: [],
      link: { table: 'executor_secrets', ownerColumn: 'executor_id', targetColumn: 'secret_id' },
      filterAs: 'secretId',
      relation: { name: 'secretIds', type: 'Secret', description: 'The secrets the run receives.' },
    },
    ownerId: ownerIdField(2),
  },
} as const satisfies EntityDeclaration;
