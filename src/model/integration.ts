import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { httpUrl, nonEmpty, uniqueNameField, ownerIdField } from './inputs.js';

/** What an integration connects to. */
export const INTEGRATION_TYPES = ['cloud', 'git', 'notification'] as const;

/** The providers each integration type allows. */
export const INTEGRATION_PROVIDERS = {
  cloud: ['aws', 'azurerm', 'gcp', 'mongodb_atlas', 'datadog'],
  git: ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'],
  notification: ['slack'],
} as const;

/** Configuration keys holding secrets, whatever the provider: encrypted in events, never shown. */
export const INTEGRATION_SECRET_KEYS = [
  'awsSecretAccessKey',
  'clientSecret',
  'gcpServiceAccountKey',
  'privateKey',
  'apiKey',
  'appKey',
  'botToken',
  'token',
] as const;

const value = nonEmpty(500);
const secret = z.string().min(1, 'must not be empty').max(20_000, 'at most 20000 characters');
const git = z.strictObject({ token: secret.optional(), url: httpUrl.optional() });

/** Provider-specific configuration (docs/contract.md §2); unknown keys are refused. */
export const integrationConfigurationSchemas = {
  aws: z.strictObject({
    awsAccessKeyId: value,
    awsSecretAccessKey: secret,
    awsAccount: value,
    awsDefaultRegion: value.optional(),
    awsAssumedRoleName: value.optional(),
  }),
  azurerm: z.strictObject({ clientId: value, clientSecret: secret, tenantId: value, subscriptionId: value }),
  gcp: z.strictObject({ gcpProjectId: value, gcpServiceAccountKey: secret }),
  mongodb_atlas: z.strictObject({ orgId: value, publicKey: value, privateKey: secret }),
  datadog: z.strictObject({ apiUrl: httpUrl, apiKey: secret, appKey: secret }),
  slack: z.strictObject({ botToken: secret }),
  github: git,
  gitlab: git,
  bitbucket: git,
  azure_devops: git,
  git_public: z.strictObject({}),
} as const;

const providersOf = (type: keyof typeof INTEGRATION_PROVIDERS) =>
  z.enum(INTEGRATION_PROVIDERS[type], { message: `must be one of ${INTEGRATION_PROVIDERS[type].join(', ')} for integrationType ${type}` });

/** Integrations: credentials and settings for a cloud, git or notification provider (docs/contract.md §2). */
export const integrationEntity = {
  name: 'Integration',
  kind: 'integration',
  plural: 'integrations',
  table: 'integrations',
  description: 'Credentials and settings for a cloud, git or notification provider.',
  fields: {
    name: uniqueNameField('integration-name', 'an integration'),
    integrationType: {
      kind: 'enum',
      values: INTEGRATION_TYPES,
      description: '`cloud`, `git` or `notification`.',
      required: true,
      immutable: true,
    },
    integrationProvider: {
      kind: 'text',
      description:
        'cloud: `aws`, `azurerm`, `gcp`, `mongodb_atlas`, `datadog`; git: `github`, `gitlab`, `bitbucket`, `azure_devops`, ' +
        '`git_public`; notification: `slack`.',
      input: z.string().min(1, 'must not be empty'),
      required: true,
      immutable: true,
      variants: {
        by: 'integrationType',
        schemas: { cloud: providersOf('cloud'), git: providersOf('git'), notification: providersOf('notification') },
      },
    },
    configuration: {
      kind: 'json',
      description: 'Provider-specific settings; secret values are shown as `********`.',
      required: true,
      variants: { by: 'integrationProvider', schemas: integrationConfigurationSchemas },
    },
    ownerId: ownerIdField(2),
  },
  secrets: {
    paths: INTEGRATION_SECRET_KEYS.map((key) => `configuration.${key}`),
    restoreMessage: 'is write-only: send the secret itself, not ********',
  },
} as const satisfies EntityDeclaration;
