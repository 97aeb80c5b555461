import type { Permission } from '../model/permissions.js';
import type { ListSpec } from '../read/list-query.js';
import { auditLogListSpec } from '../read/list-specs/audit-log.js';
import { authProviderListSpec } from '../read/list-specs/auth-providers.js';
import { executorListSpec } from '../read/list-specs/executors.js';
import { integrationListSpec } from '../read/list-specs/integrations.js';
import { resourceListSpec } from '../read/list-specs/resources.js';
import { runListSpec } from '../read/list-specs/runs.js';
import { secretListSpec } from '../read/list-specs/secrets.js';
import { sourceCodeVersionListSpec } from '../read/list-specs/source-code-versions.js';
import { sourceCodeListSpec } from '../read/list-specs/source-codes.js';
import { storageListSpec } from '../read/list-specs/storages.js';
import { templateListSpec } from '../read/list-specs/templates.js';
import { userListSpec } from '../read/list-specs/users.js';
import { workspaceListSpec } from '../read/list-specs/workspaces.js';
import { teamListSpec } from '../read/list-specs/teams.js';
import { webhookListSpec } from '../read/list-specs/webhooks.js';
import type { TypeName } from './model.js';

/**
 * The root query fields of each readable kind: `single(id)`, `plural(filter, sort, range)` and,
 * where offered, `{plural}Count(filter)`. The list spec is the REST list's, so both edges accept and
 * refuse the same filters, sorts and ranges.
 */
export interface RootEntity {
  readonly type: TypeName;
  /** The single query (`template(id: UUID!)`); absent for the audit log. */
  readonly single?: string;
  readonly plural: string;
  readonly listSpec: ListSpec;
  /** Whether `{plural}Count` is offered. */
  readonly count: boolean;
  /** How descriptions name the rows, e.g. `source codes`. */
  readonly noun: string;
  /** What the root fields need, when it differs from the type's own read permission (users: `user:read`, or oneself). */
  readonly permission?: Permission;
  /** Rows beyond what the caller may read: `awaitingDecision`, the requests waiting for the caller's approval. */
  readonly scope?: 'awaitingDecision';
}

/** The root fields of every entity: single, list and count queries. */
export const ROOT_ENTITIES: readonly RootEntity[] = [
  { type: 'Integration', single: 'integration', plural: 'integrations', listSpec: integrationListSpec, count: true, noun: 'integrations' },
  { type: 'Storage', single: 'storage', plural: 'storages', listSpec: storageListSpec, count: true, noun: 'storages' },
  { type: 'Secret', single: 'secret', plural: 'secrets', listSpec: secretListSpec, count: true, noun: 'secrets' },
  { type: 'SourceCode', single: 'sourceCode', plural: 'sourceCodes', listSpec: sourceCodeListSpec, count: true, noun: 'source codes' },
  {
    type: 'SourceCodeVersion',
    single: 'sourceCodeVersion',
    plural: 'sourceCodeVersions',
    listSpec: sourceCodeVersionListSpec,
    count: true,
    noun: 'source code versions',
  },
  { type: 'Template', single: 'template', plural: 'templates', listSpec: templateListSpec, count: true, noun: 'templates' },
  { type: 'Executor', single: 'executor', plural: 'executors', listSpec: executorListSpec, count: true, noun: 'executors' },
  { type: 'Resource', single: 'resource', plural: 'resources', listSpec: resourceListSpec, count: true, noun: 'resources' },
  {
    type: 'Resource',
    plural: 'approvals',
    listSpec: resourceListSpec,
    count: true,
    noun:
      'resource requests waiting for your approval (docs/contract.md §6: the leads of the team that owns the template, or ' +
      '`resource:admin`)',
    scope: 'awaitingDecision',
  },
  { type: 'Workspace', single: 'workspace', plural: 'workspaces', listSpec: workspaceListSpec, count: true, noun: 'workspaces' },
  { type: 'Team', single: 'team', plural: 'teams', listSpec: teamListSpec, count: true, noun: 'teams' },
  { type: 'Webhook', single: 'webhook', plural: 'webhooks', listSpec: webhookListSpec, count: true, noun: 'webhooks' },
  { type: 'User', single: 'user', plural: 'users', listSpec: userListSpec, count: true, noun: 'users', permission: 'user:read' },
  {
    type: 'AuthProvider',
    single: 'authProvider',
    plural: 'authProviders',
    listSpec: authProviderListSpec,
    count: false,
    noun: 'auth providers',
  },
  { type: 'AuditEntry', plural: 'auditLog', listSpec: auditLogListSpec, count: true, noun: 'audit log entries' },
  { type: 'Run', single: 'run', plural: 'runs', listSpec: runListSpec, count: true, noun: 'runs' },
];
