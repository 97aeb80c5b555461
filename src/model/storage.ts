import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { integrationIdField, nonEmpty, uniqueNameField, ownerIdField } from './inputs.js';

/** The clouds a storage can be in. */
export const STORAGE_PROVIDERS = ['aws', 'azurerm', 'gcp'] as const;
/** The state formats a storage keeps. */
export const STORAGE_TYPES = ['tofu'] as const;

const value = nonEmpty(255);

/** Where state files live, per provider (docs/contract.md §2); unknown keys are refused. */
export const storageConfigurationSchemas = {
  aws: z.strictObject({ awsBucketName: value, awsRegion: value }),
  azurerm: z.strictObject({ resourceGroupName: value, storageAccountName: value, containerName: value }),
  gcp: z.strictObject({ gcpBucketName: value, gcpRegion: value }),
} as const;

/** Storages: where OpenTofu state is kept, provisioned through the lifecycle without approval (docs/contract.md §2–§3). */
export const storageEntity = {
  name: 'Storage',
  kind: 'storage',
  plural: 'storages',
  table: 'storages',
  description: 'Where OpenTofu/Terraform state is kept (a bucket or container).',
  lifecycle: { approvals: false, outputs: false },
  fields: {
    name: uniqueNameField('storage-name', 'a storage'),
    storageProvider: {
      kind: 'enum',
      values: STORAGE_PROVIDERS,
      description: '`aws`, `azurerm` or `gcp`.',
      required: true,
      immutable: true,
    },
    storageType: {
      kind: 'enum',
      values: STORAGE_TYPES,
      description: 'The state format: `tofu`.',
      input: z.literal('tofu', { message: 'must be tofu' }),
      default: 'tofu',
    },
    configuration: {
      kind: 'json',
      description: 'Provider-specific location of the state (bucket, region, …).',
      required: true,
      variants: { by: 'storageProvider', schemas: storageConfigurationSchemas },
    },
    integrationId: {
      ...integrationIdField('The cloud integration whose credentials reach the storage.', {
        type: 'cloud',
        providerField: 'storageProvider',
      }),
      required: true,
    },
    ownerId: ownerIdField(2),
  },
} as const satisfies EntityDeclaration;
