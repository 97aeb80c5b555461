import type { Permission } from '../model/permissions.js';
import { DECLARED_ENTITIES, type DeclaredName } from '../model/catalog.js';
import { columnOf, isNullable, ownFields, type EntityDeclaration } from '../model/entity.js';
import { shownFields, type AccountDeclaration } from '../model/account.js';
import { userEntity } from '../model/user.js';
import { authProviderEntity } from '../model/auth-provider.js';
import { maskConfiguration } from '../projections/auth-providers.js';

/**
 * The read side as GraphQL sees it: one object type per read table, each field declared once with
 * its GraphQL type, its description (the docs GraphiQL shows) and where it comes from. The SDL
 * (sdl.ts), the column selection (plan.ts) and the batched relation loads (loader.ts) are all derived
 * from these declarations, so a field cannot be documented but not loaded, or loaded but not offered.
 */

/** Every GraphQL object type the read side offers. */
export type TypeName = DeclaredName | 'User' | 'AuthProvider' | 'AuditEntry' | 'Run';

/** A plain stored column. `restricted` values are shown only to callers allowed by the type's `restrictedTo`. */
export interface ColumnField {
  readonly kind: 'column';
  readonly column: string;
  readonly type: string;
  readonly description: string;
  readonly restricted?: true;
}

/** A value computed from stored columns (only those columns are read). */
export interface ComputedField {
  readonly kind: 'computed';
  readonly columns: readonly string[];
  readonly type: string;
  readonly description: string;
  readonly compute: (row: Readonly<Record<string, unknown>>, context: ComputeContext) => unknown;
}

/** What computed fields may use besides their columns. */
export interface ComputeContext {
  readonly baseUrl: string;
}

/** The row's foreign key column names one row of `target`. */
export interface ToOneField {
  readonly kind: 'toOne';
  readonly column: string;
  readonly target: TypeName;
  readonly description: string;
}

/** A link table pairs the row (`ownerColumn`) with rows of `target` (`targetColumn`), in `ordinal` order. */
export interface ToManyField {
  readonly kind: 'toMany';
  readonly table: string;
  readonly ownerColumn: string;
  readonly targetColumn: string;
  readonly target: TypeName;
  readonly description: string;
}

/** Rows of `target` whose `column` points back at this row. */
export interface ReverseField {
  readonly kind: 'reverse';
  readonly column: string;
  readonly target: TypeName;
  readonly description: string;
}

/** A field that resolves to other objects. */
export type RelationField = ToOneField | ToManyField | ReverseField;
/** Any field of an object type. */
/**
 * What the caller may do with the row (docs/contract.md §6): their levels or the actions that would
 * work now, loaded for all rows of a level in one statement (src/edge/entity-permissions.ts).
 */
export interface AccessField {
  readonly kind: 'access';
  readonly part: 'myPermissions' | 'availableActions' | 'isFavorite';
  readonly type: string;
  readonly description: string;
}

/** One field of an object type. */
export type FieldDef = ColumnField | ComputedField | RelationField | AccessField;

/** One GraphQL object type: its table, who may read it and its fields. */
export interface ObjectTypeDef {
  readonly name: TypeName;
  readonly description: string;
  readonly table: string;
  /** Tombstoned rows (`deleted_at` set) are never shown. */
  readonly softDelete: boolean;
  /** What a caller needs to see rows of this type at all; null: every signed-in caller. */
  readonly readPermission: Permission | null;
  /** Who sees `restricted` fields: holders of this permission, and the row itself when it is the caller. */
  readonly restrictedTo?: Permission;
  /** The declared entity kind behind the type (its access fields are computed for that kind). */
  readonly kind?: string;
  readonly fields: Readonly<Record<string, FieldDef>>;
}

const column = (name: string, type: string, description: string): ColumnField => ({ kind: 'column', column: name, type, description });
const toOne = (name: string, target: TypeName, description: string): ToOneField => ({ kind: 'toOne', column: name, target, description });
const toMany = (table: string, ownerColumn: string, targetColumn: string, target: TypeName, description: string): ToManyField => ({
  kind: 'toMany',
  table,
  ownerColumn,
  targetColumn,
  target,
  description,
});

/** docs/contract.md §2 common fields of every catalog entity (`status` differs between the two entity kits). */
function common(noun: string): Record<string, FieldDef> {
  return {
    id: column('id', 'UUID!', `The ${noun}'s id.`),
    description: column('description', 'String!', 'Free text (empty when not set).'),
    labels: column('labels', '[String!]!', 'Labels for grouping and search (empty when not set).'),
    revision: column('revision', 'Int!', `The ${noun}'s stream version; send it as If-Match on a REST PATCH to update safely.`),
    createdAt: column('created_at', 'DateTime!', 'When it was created.'),
    updatedAt: column('updated_at', 'DateTime!', 'When it last changed.'),
    creator: toOne('creator_id', 'User', 'Who created it (null for entities created by the system).'),
  };
}

/** The GraphQL type of each value field kind (outputs here; inputs in ./mutations.ts add the id kinds). */
export const GRAPHQL_TYPE_OF_KIND = {
  text: 'String',
  enum: 'String',
  boolean: 'Boolean',
  integer: 'Int',
  json: 'JSON',
  textList: '[String!]',
} as const;

const enabledStatus = column('status', 'String!', '`enabled` or `disabled`; disabled entities cannot be newly referenced.');

/** docs/contract.md §2 lifecycle fields of storages, executors and resources. */
const lifecycle: Record<string, FieldDef> = {
  state: column('state', 'String!', 'Lifecycle state: `provision`, `provisioned`, `destroy` or `destroyed`.'),
  status: column(
    'status',
    'String!',
    'Lifecycle status: `approval_pending`, `rejected`, `ready`, `queued`, `in_progress`, `done` or `error`.',
  ),
  lastError: column('last_error', 'String', 'The error reported by the last failed run (null otherwise).'),
};

/**
 * The GraphQL fields of a declared entity: each value field a column of its GraphQL type (non-null
 * unless nullable), each id the to-one relation it declares and each id list the to-many relation,
 * resolved through its link table; then the kit's status (or lifecycle) fields.
 */
function declaredFields(entity: EntityDeclaration): Record<string, FieldDef> {
  const fields: Record<string, FieldDef> = {};
  for (const [name, field] of ownFields(entity)) {
    if (field.kind === 'idList') {
      const { link, relation } = field;
      fields[relation.name] = toMany(link.table, link.ownerColumn, link.targetColumn, relation.type as TypeName, relation.description);
    } else if (field.kind === 'id') {
      fields[field.relation.name] = toOne(columnOf(name), field.relation.type as TypeName, field.relation.description);
    } else {
      fields[name] = column(columnOf(name), `${GRAPHQL_TYPE_OF_KIND[field.kind]}${isNullable(field) ? '' : '!'}`, field.description);
    }
  }
  if (!entity.lifecycle) return { ...fields, status: enabledStatus };
  return {
    ...fields,
    ...lifecycle,
    ...(entity.lifecycle.outputs && { outputs: column('outputs', 'JSON', 'What the last successful run reported.') }),
  };
}

/** `myPermissions`, `availableActions` and `isFavorite`, which every declared entity answers for the caller. */
const ACCESS_FIELDS: Record<string, AccessField> = {
  myPermissions: {
    kind: 'access',
    part: 'myPermissions',
    type: '[String!]!',
    description:
      'Your levels on it, weakest first (`read`, `write`, `admin`): from your roles and grants, its grants, and the team that owns it.',
  },
  availableActions: {
    kind: 'access',
    part: 'availableActions',
    type: '[String!]!',
    description:
      'What you may do with it now: `update`, `delete`, `enable`/`disable`, the lifecycle actions its state allows you, `changeOwner`, ' +
      '`grant`.',
  },
  isFavorite: {
    kind: 'access',
    part: 'isFavorite',
    type: 'Boolean!',
    description: 'Whether you starred it (your favorites: `favorites`, `addFavorite`, `removeFavorite`).',
  },
};

/** The object type of a declared catalog entity (read with `<kind>:read`), plus fields it has beyond the declaration. */
function declaredType(entity: EntityDeclaration, extra: Readonly<Record<string, FieldDef>> = {}): ObjectTypeDef {
  return {
    name: entity.name as TypeName,
    description: entity.description,
    table: entity.table,
    softDelete: true,
    // Every catalog entity's kind is a permission resource (model/permissions.ts).
    readPermission: `${entity.kind}:read` as Permission,
    kind: entity.kind,
    fields: {
      ...common(entity.kind.replaceAll('_', ' ')),
      ...upstreamNames(entity.kind),
      ...declaredFields(entity),
      ...ACCESS_FIELDS,
      ...extra,
    },
  };
}

/**
 * The names the upstream project's clients ask for (docs/contract.md, the upstream's dialect):
 * `entityName`, the kind as a constant (`template`, `source_code`, …), and `revisionNumber`, the
 * revision under the upstream's name.
 */
function upstreamNames(kind: string): Record<string, FieldDef> {
  return {
    entityName: {
      kind: 'computed',
      columns: [],
      type: 'String!',
      description: `The kind of entity: \`${kind}\` (the upstream project's name for it).`,
      compute: () => kind,
    },
    revisionNumber: column('revision', 'Int!', "The same as `revision`, under the upstream project's name."),
  };
}

/**
 * Who reads an account's type: everyone signed in, or holders of `read`; its `restricted` fields only
 * holders of `restrictedTo` (and the caller, on their own record).
 */
export interface AccountAccess {
  readonly read?: Permission;
  readonly restrictedTo?: Permission;
}

/**
 * The object type of a declared account (../model/account.ts): its id, each shown field (restricted
 * ones nullable), what the type adds or overrides (`extra`), the revision and timestamps. Tombstoned
 * records (a `deletedAt` fact) are never shown.
 */
export function accountType(account: AccountDeclaration, access: AccountAccess, extra: Readonly<Record<string, FieldDef>>): ObjectTypeDef {
  const fields: Record<string, FieldDef> = { id: column('id', 'UUID!', `The ${account.kind.replaceAll('_', ' ')}'s id.`) };
  for (const [name, field] of shownFields(account)) {
    if (field.kind === 'id' || field.kind === 'idList') continue; // accounts declare no relations (yet)
    const type = 'timestamp' in field && field.timestamp ? 'DateTime' : GRAPHQL_TYPE_OF_KIND[field.kind];
    const nullable = isNullable(field) || field.restricted === true;
    fields[name] = {
      ...column(columnOf(name), `${type}${nullable ? '' : '!'}`, field.description),
      ...(field.restricted && { restricted: true }),
    };
  }
  Object.assign(fields, extra, upstreamNames(account.kind), {
    revision: column('revision', 'Int!', 'The stream version; send it as If-Match on a REST PATCH to update safely.'),
    createdAt: column('created_at', 'DateTime!', 'When it was created.'),
    updatedAt: column('updated_at', 'DateTime!', 'When it last changed.'),
  });
  return {
    name: account.name as TypeName,
    description: account.description,
    table: account.table,
    softDelete: 'deletedAt' in account.state,
    readPermission: access.read ?? null,
    ...(access.restrictedTo && { restrictedTo: access.restrictedTo }),
    fields,
  };
}

/**
 * `resourcesCount` (./counts.ts resolves it): the loader hands the entity's id under the field's own
 * name, since a count is no column of the row, and the count is made for the whole answer at once.
 */
const resourcesCountField = (counted: string): FieldDef => ({
  kind: 'computed',
  columns: ['id'],
  type: 'Int!',
  description: `How many live resources ${counted} that you may read (counted now).`,
  compute: (row) => row.id,
});

/**
 * What a declared kind's type adds to the fields its declaration gives: relations declared on the
 * other side (a template's versions and resources, a resource's children), counts.
 */
const DECLARED_EXTRAS: Readonly<Partial<Record<DeclaredName, Readonly<Record<string, FieldDef>>>>> = {
  SourceCode: {
    sourceCodeVersions: {
      kind: 'reverse',
      column: 'source_code_id',
      target: 'SourceCodeVersion',
      description: 'The versions taken from this repository.',
    },
  },
  SourceCodeVersion: { resourcesCount: resourcesCountField('run this version') },
  Template: {
    children: toMany('template_parents', 'parent_id', 'template_id', 'Template', 'The templates that name it as a parent.'),
    resourcesCount: resourcesCountField('were requested from it'),
    resources: {
      kind: 'reverse',
      column: 'template_id',
      target: 'Resource',
      description: 'The resources requested from it, oldest first.',
    },
    sourceCodeVersions: {
      kind: 'reverse',
      column: 'template_id',
      target: 'SourceCodeVersion',
      description: 'The code versions that implement it.',
    },
  },
  Resource: {
    children: toMany(
      'resource_parents',
      'parent_id',
      'resource_id',
      'Resource',
      'The resources that name it as a parent (destroyed before it).',
    ),
  },
};

/** Every declared kind's type (docs/adding-a-kind.md). */
const DECLARED_TYPES = Object.fromEntries(
  DECLARED_ENTITIES.map((entity) => [entity.name, declaredType(entity, DECLARED_EXTRAS[entity.name as DeclaredName])]),
) as Record<DeclaredName, ObjectTypeDef>;

/** Every object type, each field declared once (SDL, columns and loads derive from these). */
export const OBJECT_TYPES: Readonly<Record<TypeName, ObjectTypeDef>> = {
  ...DECLARED_TYPES,
  User: accountType(
    userEntity,
    { restrictedTo: 'user:read' },
    {
      name: {
        kind: 'computed',
        columns: ['display_name', 'identifier'],
        type: 'String!',
        description: 'The display name, else the identifier.',
        compute: (row) => row.display_name ?? row.identifier,
      },
    },
  ),
  AuthProvider: accountType(
    authProviderEntity,
    { read: 'auth_provider:read' },
    {
      configuration: {
        kind: 'computed',
        columns: ['configuration'],
        type: 'JSON!',
        description: authProviderEntity.fields.configuration.description,
        // Masked again on the way out, so no row can ever show a secret.
        compute: (row) => maskConfiguration(row.configuration as Record<string, unknown>),
      },
      callbackUrl: {
        kind: 'computed',
        columns: ['type', 'key'],
        type: 'String',
        description: 'The redirect URL to register at the identity provider (SSO types only).',
        compute: (row, context) =>
          ['github', 'google', 'microsoft'].includes(row.type as string)
            ? `${context.baseUrl}/api/auth/${row.key as string}/callback`
            : null,
      },
      creator: toOne('creator_id', 'User', 'Who created it.'),
    },
  ),
  AuditEntry: {
    name: 'AuditEntry',
    description:
      'One event of the log: who did what to which entity. `super` reads all; others read entries of the entity kinds they may read.',
    table: 'audit_log',
    softDelete: false,
    readPermission: null,
    fields: {
      id: column('id', 'UUID!', "The event's id."),
      at: column('at', 'DateTime!', 'When it happened.'),
      actor: toOne('actor_id', 'User', 'Who did it (null for the system).'),
      action: column('action', 'String!', 'The event type, e.g. `TemplateCreated`.'),
      verb: column('verb', 'String!', 'The action as a verb: `created`, `updated`, `approved`, `rejected`, `executed`, `signed_in`, …'),
      entityType: column('entity_type', 'String!', 'The kind of entity, e.g. `template`.'),
      entityId: column('entity_id', 'String', "The entity's id."),
      entityName: column('entity_name', 'String', "The entity's name as its latest event left it (null when it has none)."),
      diff: column(
        'diff',
        'JSON!',
        'The fields the event changed: `[{field, before?, after?}]` (`before` absent for a new value; secrets never appear).',
      ),
      reason: column(
        'reason',
        'String',
        'The reason the event gives (an approval or rejection, a failed sign-in, an ended session), if any.',
      ),
      changes: column('changes', 'JSON!', "The event's data, secrets replaced by `********`."),
      correlationId: column('correlation_id', 'String!', 'Shared by every event of one request.'),
      causationId: column('causation_id', 'String', 'The event or command that caused it.'),
      position: {
        kind: 'computed',
        columns: ['position'],
        type: 'Float!',
        description: 'Global position in the event log (usable as `X-Min-Position` on REST reads).',
        compute: (row) => Number(row.position),
      },
    },
  },
  Run: {
    name: 'Run',
    description:
      'One run of a resource (docs/contract.md §2, "Runs"): queued by `execute`, moved by the runner\'s `start`, `succeed` and `fail`. ' +
      'Read with `resource:read`; its log is `runLog(runId)` (and the `runLog` subscription).',
    table: 'runs',
    softDelete: false,
    readPermission: 'resource:read',
    fields: {
      id: column('id', 'UUID!', "The run's id (the id of the event that queued it)."),
      resource: toOne('resource_id', 'Resource', 'The resource it runs (null once the resource is deleted).'),
      resourceId: column('resource_id', 'UUID!', "The resource's id."),
      action: column('action', 'String!', '`apply` (provision, or re-apply) or `destroy`.'),
      status: column('status', 'String!', '`queued`, `in_progress`, `succeeded`, `failed` or `cancelled` (called off while queued).'),
      actor: toOne('actor_id', 'User', 'Who executed it.'),
      queuedAt: column('queued_at', 'DateTime!', 'When it was queued (`execute`).'),
      startedAt: column('started_at', 'DateTime', 'When the runner started it.'),
      finishedAt: column('finished_at', 'DateTime', 'When it succeeded, failed or was cancelled.'),
      error: column('error', 'String', 'What the runner reported when it failed.'),
      outputs: column('outputs', 'JSON', 'What the runner reported when it succeeded.'),
    },
  },
};
