import type { ConfigKey } from '../common/ConfigurationInputs';

/** Provider-specific `configuration` keys (docs/contract.md §2); † secrets are write-only. */
export const INTEGRATION_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  cloud: ['aws', 'azurerm', 'gcp', 'mongodb_atlas', 'datadog'],
  git: ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'],
  notification: ['slack', 'incoming_webhook'],
};

const gitKeys: readonly ConfigKey[] = [
  { key: 'token', label: 'Access token', secret: true, helperText: 'Optional: for private repositories.' },
  { key: 'url', label: 'Server URL', helperText: 'Optional: a self-hosted server.' },
];

export const INTEGRATION_CONFIG: Readonly<Record<string, readonly ConfigKey[]>> = {
  aws: [
    { key: 'awsAccessKeyId', label: 'Access key ID', required: true },
    { key: 'awsSecretAccessKey', label: 'Secret access key', required: true, secret: true },
    { key: 'awsAccount', label: 'Account', required: true },
    { key: 'awsDefaultRegion', label: 'Default region' },
    { key: 'awsAssumedRoleName', label: 'Assumed role name' },
  ],
  azurerm: [
    { key: 'clientId', label: 'Client ID', required: true },
    { key: 'clientSecret', label: 'Client secret', required: true, secret: true },
    { key: 'tenantId', label: 'Tenant ID', required: true },
    { key: 'subscriptionId', label: 'Subscription ID', required: true },
  ],
  gcp: [
    { key: 'gcpProjectId', label: 'Project ID', required: true },
    { key: 'gcpServiceAccountKey', label: 'Service account key (JSON)', required: true, secret: true },
  ],
  mongodb_atlas: [
    { key: 'orgId', label: 'Organisation ID', required: true },
    { key: 'publicKey', label: 'Public key', required: true },
    { key: 'privateKey', label: 'Private key', required: true, secret: true },
  ],
  datadog: [
    { key: 'apiUrl', label: 'API URL', required: true },
    { key: 'apiKey', label: 'API key', required: true, secret: true },
    { key: 'appKey', label: 'Application key', required: true, secret: true },
  ],
  slack: [
    { key: 'botToken', label: 'Bot token', required: true, secret: true, helperText: 'xoxb-…, with chat:write and users:read.email.' },
    { key: 'channel', label: 'Channel', helperText: 'Optional: post in this channel (#platform) instead of direct messages.' },
    { key: 'apiUrl', label: 'API URL', helperText: 'Optional: only for a proxy; https://slack.com/api otherwise.' },
  ],
  incoming_webhook: [
    {
      key: 'webhookUrl',
      label: 'Webhook URL',
      required: true,
      secret: true,
      helperText: 'The incoming webhook URL; it is the credential.',
    },
  ],
  github: gitKeys,
  gitlab: gitKeys,
  bitbucket: gitKeys,
  azure_devops: gitKeys,
  git_public: [],
};

export const STORAGE_CONFIG: Readonly<Record<string, readonly ConfigKey[]>> = {
  aws: [
    { key: 'awsBucketName', label: 'Bucket', required: true },
    { key: 'awsRegion', label: 'Region', required: true },
  ],
  azurerm: [
    { key: 'resourceGroupName', label: 'Resource group', required: true },
    { key: 'storageAccountName', label: 'Storage account', required: true },
    { key: 'containerName', label: 'Container', required: true },
  ],
  gcp: [
    { key: 'gcpBucketName', label: 'Bucket', required: true },
    { key: 'gcpRegion', label: 'Region', required: true },
  ],
};

export const SECRET_CONFIG: Readonly<Record<string, readonly ConfigKey[]>> = {
  aws: [
    { key: 'name', label: 'Secret name in AWS Secrets Manager', required: true },
    { key: 'awsRegion', label: 'Region', required: true },
  ],
  gcp: [
    { key: 'name', label: 'Secret name in GCP Secret Manager', required: true },
    { key: 'gcpRegion', label: 'Region' },
  ],
  custom: [],
};

/** The configuration with only the keys of `provider` (a provider switch in a form leaves others behind). */
export function pickConfiguration(
  configuration: unknown,
  keys: readonly ConfigKey[] | undefined,
  extra: readonly string[] = [],
): Record<string, unknown> {
  const source = (configuration ?? {}) as Record<string, unknown>;
  const allowed = new Set([...(keys ?? []).map((k) => k.key), ...extra]);
  return Object.fromEntries(Object.entries(source).filter(([key, value]) => allowed.has(key) && value !== null && value !== ''));
}
