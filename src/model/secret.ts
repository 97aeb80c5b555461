import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { entityName, integrationIdField, nonEmpty, uniquelyNamed, uniqueNameField, ownerIdField } from './inputs.js';

/** Where a secret is kept. */
export const SECRET_PROVIDERS = ['aws', 'gcp', 'custom'] as const;
/** The formats a secret is consumed in. */
export const SECRET_TYPES = ['tofu'] as const;

const text = nonEmpty(500);
const entry = z.strictObject({ name: entityName, value: z.string().min(1, 'must not be empty').max(20_000, 'at most 20000 characters') });

/** Provider-specific configuration (docs/contract.md §2); unknown keys are refused. */
export const secretConfigurationSchemas = {
  aws: z.strictObject({ name: text, awsRegion: text }),
  gcp: z.strictObject({ name: text, gcpRegion: text.optional() }),
  custom: z.strictObject({ secrets: uniquelyNamed(entry, 200, 'at most 200 secrets', 'secret name') }),
} as const;

/**
 * Secrets: kept in a cloud secret manager, or custom values kept encrypted by the service (docs/contract.md §2).
 * Only custom secrets go without an integration (a rule of the write model).
 */
export const secretEntity = {
  name: 'Secret',
  kind: 'secret',
  plural: 'secrets',
  table: 'secrets',
  description: 'A secret kept in a cloud secret manager, or custom values kept encrypted by the service.',
  fields: {
    name: uniqueNameField('secret-name', 'a secret'),
    secretProvider: { kind: 'enum', values: SECRET_PROVIDERS, description: '`aws`, `gcp` or `custom`.', required: true, immutable: true },
    secretType: { kind: 'enum', values: SECRET_TYPES, description: 'The consumer format: `tofu`.', default: 'tofu' },
    configuration: {
      kind: 'json',
      description: 'Provider-specific settings; custom secret values are shown as `********`.',
      default: {},
      variants: { by: 'secretProvider', schemas: secretConfigurationSchemas },
    },
    integrationId: {
      ...integrationIdField('The cloud integration that reaches the secret manager (null for `custom`).', {
        type: 'cloud',
        providerField: 'secretProvider',
        except: ['custom'],
      }),
      nullable: true,
      default: null,
    },
    ownerId: ownerIdField(2),
  },
  secrets: {
    paths: ['configuration.secrets[].value'],
    restoreMessage: 'is write-only: send the secret itself, not ******** (no stored secret has this name)',
  },
} as const satisfies EntityDeclaration;
