import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { httpUrl, nonEmpty, uniqueNameField, ownerIdField } from './inputs.js';

/** What an integration connects to. */
export const INTEGRATION_TYPES = ['cloud', 'git', 'notification'] as const;

/** The providers each integration type allows. */
export const INTEGRATION_PROVIDERS = {
  cloud: ['aws', 'azurerm', 'gcp', 'mongodb_atlas', 'datadog'],
  git: ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'],
  notification: ['slack', 'incoming_webhook'],
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
  'webhookUrl',
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
  // Slack's Web API (docs/contract.md §11): `apiUrl` points elsewhere only for a proxy or a test server;
  // with `channel` one message goes there naming everyone it is for, else each recipient gets a direct message.
  slack: z.strictObject({
    botToken: secret,
    channel: z
      .string()
      .regex(/^[#]?[\w-]{1,80}$/, 'must be a channel name or id, as #platform or C0123ABCD')
      .optional(),
    apiUrl: httpUrl.optional(),
  }),
  // Any chat that takes `{"text": …}` at a URL (Slack, Mattermost, Rocket.Chat incoming webhooks). The URL
  // is the credential, so it is write-only.
  incoming_webhook: z.strictObject({ webhookUrl: httpUrl.max(2000, 'at most 2000 characters') }),
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
        '`git_public`; notification: `slack`, `incoming_webhook`.',
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
    boundTo: ['configuration.apiUrl', 'configuration.url'],
  },
} as const satisfies EntityDeclaration;
