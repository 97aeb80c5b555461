import type { ExecutorFields } from '../../events/executor.js';
import type { IntegrationFields } from '../../events/integration.js';
import type { SecretFields } from '../../events/secret.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import type { SourceCodeVersionFields } from '../../events/source-code-version.js';
import type { StorageFields } from '../../events/storage.js';
import type { TemplateFields } from '../../events/template.js';
import { createBodySchema } from '../../model/entity.js';
import { integrationConfigurationSchemas } from '../../model/integration.js';
import type { ResourceVariable } from '../../model/resource.js';
import { secretConfigurationSchemas } from '../../model/secret.js';
import type { SourceCodeProvider } from '../../model/source-code.js';
import type { SourceCodeOutput, SourceCodeVariable } from '../../model/source-code-version.js';
import { storageConfigurationSchemas } from '../../model/storage.js';
import { templateEntity } from '../../model/template.js';

const createTemplateBody = createBodySchema(templateEntity);

/**
 * The pure data of a seeded catalog: field values shaped as the REST edge would have parsed them
 * (configurations and template bodies go through the declarations' own schemas, so nothing here could be
 * refused over REST). Everything is derived from the prefix and an index, so runs are repeatable.
 */
export const CLOUDS = ['aws', 'gcp', 'azurerm'] as const;
/** The clouds seeded catalogs spread over. */
export type Cloud = (typeof CLOUDS)[number];

const CLOUD_LABEL: Record<Cloud, string> = { aws: 'AWS', gcp: 'GCP', azurerm: 'Azure' };
const REGIONS: Record<Cloud, readonly string[]> = {
  aws: ['eu-west-1', 'us-east-1', 'eu-central-1'],
  gcp: ['europe-west1', 'us-central1'],
  azurerm: ['westeurope', 'eastus'],
};
const TEAMS = ['payments', 'search', 'platform', 'data', 'identity', 'checkout'] as const;
const ENVS = ['prod', 'staging', 'dev'] as const;

interface Kind {
  readonly name: string;
  readonly slug: string;
  readonly types: Record<Cloud, readonly string[]>;
}

/** What templates describe, with the cloud resource types each provider builds it from. */
const KINDS: readonly Kind[] = [
  {
    name: 'Web app',
    slug: 'web_app',
    types: { aws: ['aws_lb', 'aws_ecs_service'], gcp: ['google_cloud_run_v2_service'], azurerm: ['azurerm_linux_web_app'] },
  },
  {
    name: 'Postgres database',
    slug: 'postgres',
    types: { aws: ['aws_db_instance'], gcp: ['google_sql_database_instance'], azurerm: ['azurerm_postgresql_flexible_server'] },
  },
  {
    name: 'Object bucket',
    slug: 'bucket',
    types: { aws: ['aws_s3_bucket'], gcp: ['google_storage_bucket'], azurerm: ['azurerm_storage_container'] },
  },
  {
    name: 'Redis cache',
    slug: 'redis',
    types: { aws: ['aws_elasticache_cluster'], gcp: ['google_redis_instance'], azurerm: ['azurerm_redis_cache'] },
  },
  {
    name: 'Kubernetes cluster',
    slug: 'kubernetes',
    types: { aws: ['aws_eks_cluster'], gcp: ['google_container_cluster'], azurerm: ['azurerm_kubernetes_cluster'] },
  },
  {
    name: 'Message queue',
    slug: 'queue',
    types: { aws: ['aws_sqs_queue'], gcp: ['google_pubsub_topic'], azurerm: ['azurerm_servicebus_queue'] },
  },
  {
    name: 'Network',
    slug: 'network',
    types: { aws: ['aws_vpc', 'aws_subnet'], gcp: ['google_compute_network'], azurerm: ['azurerm_virtual_network'] },
  },
  {
    name: 'Function',
    slug: 'function',
    types: { aws: ['aws_lambda_function'], gcp: ['google_cloudfunctions2_function'], azurerm: ['azurerm_linux_function_app'] },
  },
];

/** The element at `index` modulo the list's length (lists here are never empty). */
export const pick = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;

/** The cloud of the n-th seeded item (round robin). */
export const cloudOf = (index: number): Cloud => pick(CLOUDS, index);
const slugOf = (prefix: string): string => prefix.replaceAll('-', '_');
const common = (labels: readonly string[], description = ''): { description: string; labels: string[] } => ({
  description,
  labels: [...labels],
});

/** A cloud integration per provider (two for AWS) and a git integration for GitHub and GitLab. */
export function integrationFixtures(prefix: string): IntegrationFields[] {
  const cloud = (name: string, provider: Cloud, configuration: Record<string, unknown>, env: string): IntegrationFields => ({
    ownerId: null,
    name: `${prefix} ${name}`,
    integrationType: 'cloud',
    integrationProvider: provider,
    configuration: integrationConfigurationSchemas[provider].parse(configuration),
    ...common([`env:${env}`], `${name} account for seeded resources`),
  });
  const git = (name: string, provider: 'github' | 'gitlab', configuration: Record<string, unknown>): IntegrationFields => ({
    ownerId: null,
    name: `${prefix} ${name}`,
    integrationType: 'git',
    integrationProvider: provider,
    configuration: integrationConfigurationSchemas[provider].parse(configuration),
    ...common(['scm'], `${name} organisation holding the modules`),
  });
  return [
    cloud(
      'AWS production',
      'aws',
      {
        awsAccessKeyId: 'AKIASEEDPROD0000001',
        awsSecretAccessKey: 'seed-aws-prod-secret',
        awsAccount: '111111111111',
        awsDefaultRegion: 'eu-west-1',
      },
      'prod',
    ),
    cloud(
      'AWS staging',
      'aws',
      {
        awsAccessKeyId: 'AKIASEEDSTAGING0001',
        awsSecretAccessKey: 'seed-aws-staging-secret',
        awsAccount: '222222222222',
        awsAssumedRoleName: 'infraledger',
      },
      'staging',
    ),
    cloud(
      'GCP',
      'gcp',
      { gcpProjectId: `${prefix}-project`, gcpServiceAccountKey: '{"type":"service_account","private_key":"seed"}' },
      'prod',
    ),
    cloud(
      'Azure',
      'azurerm',
      { clientId: 'seed-client', clientSecret: 'seed-azure-secret', tenantId: 'seed-tenant', subscriptionId: 'seed-subscription' },
      'prod',
    ),
    git('GitHub', 'github', { token: 'ghp_seedseedseedseedseed' }),
    git('GitLab', 'gitlab', { token: 'glpat-seedseedseed', url: 'https://gitlab.example.com' }),
  ];
}

/** The state backend of one cloud, through that cloud's integration. */
export function storageFixture(prefix: string, cloud: Cloud, integrationId: string): StorageFields {
  const configuration: Record<Cloud, Record<string, unknown>> = {
    aws: { awsBucketName: `${prefix}-tfstate`, awsRegion: 'eu-west-1' },
    gcp: { gcpBucketName: `${prefix}-tfstate`, gcpRegion: 'europe-west1' },
    azurerm: {
      resourceGroupName: `${prefix}-state`,
      storageAccountName: `${slugOf(prefix).replaceAll('_', '')}state`,
      containerName: 'tfstate',
    },
  };
  return {
    ownerId: null,
    name: `${prefix} ${CLOUD_LABEL[cloud]} state`,
    storageProvider: cloud,
    storageType: 'tofu',
    configuration: storageConfigurationSchemas[cloud].parse(configuration[cloud]),
    integrationId,
    ...common(['tfstate'], `OpenTofu state on ${CLOUD_LABEL[cloud]}`),
  };
}

/** Secrets in AWS and GCP secret managers (through their integrations) and one custom secret. */
export function secretFixtures(prefix: string, integrations: { aws: string; gcp: string }): SecretFields[] {
  return [
    {
      ownerId: null,
      name: `${prefix} database credentials`,
      secretProvider: 'aws',
      secretType: 'tofu',
      configuration: secretConfigurationSchemas.aws.parse({ name: `${prefix}/db`, awsRegion: 'eu-west-1' }),
      integrationId: integrations.aws,
      ...common(['db']),
    },
    {
      ownerId: null,
      name: `${prefix} service keys`,
      secretProvider: 'gcp',
      secretType: 'tofu',
      configuration: secretConfigurationSchemas.gcp.parse({ name: `${prefix}-keys`, gcpRegion: 'europe-west1' }),
      integrationId: integrations.gcp,
      ...common(['keys']),
    },
    {
      ownerId: null,
      name: `${prefix} api tokens`,
      secretProvider: 'custom',
      secretType: 'tofu',
      configuration: secretConfigurationSchemas.custom.parse({
        secrets: [
          { name: 'datadog_api_key', value: 'seed-datadog' },
          { name: 'pagerduty_token', value: 'seed-pagerduty' },
        ],
      }),
      integrationId: null,
      ...common(['tokens']),
    },
  ];
}

/** Source code `index`: mostly GitHub, some GitLab, every tenth a public repository. */
export function sourceCodeFixture(prefix: string, index: number, gitIntegrations: Record<'github' | 'gitlab', string>): SourceCodeFields {
  const provider: SourceCodeProvider = index % 10 === 9 ? 'git_public' : index % 3 === 2 ? 'gitlab' : 'github';
  const topic = pick(KINDS, index).slug.replaceAll('_', '-');
  const url =
    provider === 'gitlab'
      ? `https://gitlab.example.com/${prefix}/platform/${topic}-${index}`
      : provider === 'github'
        ? `https://github.com/${prefix}/terraform-${topic}-${index}.git`
        : `https://github.com/${prefix}-public/${topic}-${index}`;
  return {
    ownerId: null,
    sourceCodeUrl: url,
    identifier: url,
    sourceCodeProvider: provider,
    sourceCodeLanguage: 'opentofu',
    gitTags: ['v1.0.0', 'v1.1.0', 'v2.0.0'],
    gitBranches: ['main'],
    integrationId: provider === 'git_public' ? null : gitIntegrations[provider],
    ...common(['opentofu', topic], `OpenTofu modules for ${topic}`),
  };
}

/** What an executor points at, resolved by the caller. */
export interface ExecutorRefs {
  readonly sourceCodeId: string;
  readonly storageId: string;
  readonly integrationIds: readonly string[];
  readonly secretIds: readonly string[];
}

/** The fields of the n-th seeded executor. */
export function executorFixture(prefix: string, index: number, refs: ExecutorRefs): ExecutorFields {
  const cloud = cloudOf(index);
  return {
    ownerId: null,
    name: `${prefix} ${CLOUD_LABEL[cloud]} runner ${index}`,
    runtime: index % 4 === 3 ? 'terraform' : 'tofu',
    commandArgs: index % 2 === 0 ? '-parallelism=10' : '',
    sourceCodeVersion: index % 3 === 0 ? 'v1.0.0' : null,
    sourceCodeBranch: index % 3 === 1 ? 'main' : null,
    sourceCodeFolder: index % 2 === 0 ? 'runner' : '.',
    storagePath: `executors/${prefix}-${index}`,
    sourceCodeId: refs.sourceCodeId,
    storageId: refs.storageId,
    integrationIds: [...new Set(refs.integrationIds)],
    secretIds: [...refs.secretIds],
    ...common([`cloud:${cloud}`]),
  };
}

/** Abstract templates are per-cloud baselines; the others describe one kind of thing on one cloud. */
export function templateFixture(
  prefix: string,
  index: number,
  abstract: boolean,
  links: { parentIds: string[]; executorIds: string[] },
): TemplateFields {
  const cloud = cloudOf(index);
  const kind = pick(KINDS, Math.floor(index / CLOUDS.length));
  const title = abstract ? `${CLOUD_LABEL[cloud]} baseline` : `${CLOUD_LABEL[cloud]} ${kind.name}`;
  const { status: _status, ...fields } = createTemplateBody.parse({
    name: `${prefix} ${title} ${index}`,
    template: `${slugOf(prefix)}_${cloud}_${abstract ? 'baseline' : kind.slug}_${index}`,
    description: abstract ? `Shared settings for ${CLOUD_LABEL[cloud]} templates` : `${kind.name} on ${CLOUD_LABEL[cloud]}`,
    labels: [`cloud:${cloud}`, ...(abstract ? ['baseline'] : [kind.slug])],
    abstract,
    cloudResourceTypes: abstract ? [] : kind.types[cloud],
    configuration: { defaultRegion: pick(REGIONS[cloud], index), ...(abstract ? { tagging: 'required' } : {}) },
    ...links,
  });
  return fields;
}

const VARIABLES: readonly SourceCodeVariable[] = [
  { name: 'region', type: 'string', required: true, default: null, description: 'Where to create it', sensitive: false },
  { name: 'instance_count', type: 'number', required: false, default: 1, description: '', sensitive: false },
  { name: 'tags', type: 'map', required: false, default: {}, description: 'Extra tags', sensitive: false },
  {
    name: 'admin_password',
    type: 'string',
    required: false,
    default: null,
    description: 'Initial administrator password',
    sensitive: true,
  },
];
const OUTPUTS: readonly SourceCodeOutput[] = [
  { name: 'id', description: 'Cloud id', sensitive: false },
  { name: 'endpoint', description: '', sensitive: false },
  { name: 'connection_string', description: '', sensitive: true },
];

/** A tagged folder of a source code that builds one template. */
export function versionFixture(
  template: { id: string; slug: string },
  sourceCodeId: string,
  tag: string,
  lifecycleState: SourceCodeVersionFields['lifecycleState'],
): SourceCodeVersionFields {
  const folder = `modules/${template.slug}`;
  return {
    ownerId: null,
    // The first major version breaks nothing; later ones say what they change.
    breakingChanges: /^v1\./.test(tag) ? null : `Inputs of ${template.slug} renamed; see the changelog.`,
    index: 0,
    sourceCodeVersion: tag,
    sourceCodeBranch: null,
    sourceCodeFolder: folder,
    identifier: `${folder}:${tag}`,
    variables: [...VARIABLES],
    outputs: [...OUTPUTS],
    lifecycleState,
    templateId: template.id,
    sourceCodeId,
    ...common([tag]),
  };
}

/** The variables a resource sets; every fourth one also a sensitive password. */
export function resourceVariables(index: number, cloud: Cloud): ResourceVariable[] {
  const variables: ResourceVariable[] = [
    { name: 'region', value: pick(REGIONS[cloud], index), sensitive: false },
    { name: 'instance_count', value: 1 + (index % 3), sensitive: false },
    { name: 'tags', value: { team: pick(TEAMS, index), env: pick(ENVS, index) }, sensitive: false },
  ];
  if (index % 4 === 0) variables.push({ name: 'admin_password', value: `seed-pw-${index.toString(36)}`, sensitive: true });
  return variables;
}

/** The team and environment labels of the n-th seeded resource. */
export const resourceLabels = (index: number): string[] => [`team:${pick(TEAMS, index)}`, `env:${pick(ENVS, index)}`];
