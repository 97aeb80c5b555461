import { DECLARED_ENTITIES } from '../model/catalog.js';
import type { EntityDeclaration } from '../model/entity.js';
import type { Permission } from '../model/permissions.js';
import { resourceEntity } from '../model/resource.js';
import { listSpecOf } from '../read/list-specs/common.js';
import type { ListSpec } from '../read/list-query.js';
import { auditLogListSpec } from '../read/list-specs/audit-log.js';
import { authProviderListSpec } from '../read/list-specs/auth-providers.js';
import { runListSpec } from '../read/list-specs/runs.js';
import { userListSpec } from '../read/list-specs/users.js';
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

/** A declared kind's name in GraphQL: `source_code` → `sourceCode`, `source_code_versions` → `sourceCodeVersions`. */
const camel = (snake: string): string => snake.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** The root fields of a declared kind, from its declaration. */
const declaredRoot = (entity: EntityDeclaration): RootEntity => ({
  type: entity.name as TypeName,
  single: camel(entity.kind),
  plural: camel(entity.plural),
  listSpec: listSpecOf(entity),
  count: true,
  noun: entity.plural.replaceAll('_', ' '),
});

/** The root fields of every entity: single, list and count queries. */
export const ROOT_ENTITIES: readonly RootEntity[] = [
  ...DECLARED_ENTITIES.map(declaredRoot),
  {
    type: 'Resource',
    plural: 'approvals',
    listSpec: listSpecOf(resourceEntity),
    count: true,
    noun:
      'resource requests waiting for your approval (docs/contract.md §6: the leads of the team that owns the template, or ' +
      '`resource:admin`)',
    scope: 'awaitingDecision',
  },
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
