import { z } from 'zod';
import { canonicalUuid } from '../validation.js';

/**
 * The vocabulary of an entity declaration (docs/adding-a-field.md): each field of an entity is
 * declared once, with what it stores, how a client writes it and how it is read, and every layer
 * derives its part from that — the event schema (events), the write rules (commands), the request
 * bodies and OpenAPI schemas (edge, http), the projection's columns (projections), the list spec
 * (read) and the GraphQL type (graphql). The common fields every catalog entity has (id,
 * description, labels, status, creator, revision, timestamps) come from the kit and are not declared
 * per entity; neither are a lifecycle entity's `state`, `status` and `lastError` (see `lifecycle`).
 */

/** What a field stores, and so its event schema, column, list type and GraphQL type. */
export type FieldKind = 'text' | 'enum' | 'boolean' | 'integer' | 'json' | 'textList' | 'id' | 'idList';

/**
 * Kept unique across live entities by a reservation stream `<key>:<value>` (docs/decisions/0002),
 * e.g. `template-name:postgres`. Shipped streams are named by `key`, so it never changes.
 */
export interface UniqueRule {
  /** The reservation streams' prefix, e.g. `template-name`. */
  readonly key: string;
  /** Two values that differ only in case collide (the value is lower-cased in the stream name). */
  readonly caseInsensitive: boolean;
  /** Two spellings of one value share this form (e.g. a repository URL with and without `.git`). */
  readonly normalise?: (value: string) => string;
  /** Unique only among entities with the same value of this field (e.g. a name per `integrationId`). */
  readonly scope?: string;
  /** The 409's text. */
  readonly message: (value: string, values: Readonly<Record<string, unknown>>) => string;
}

interface FieldBase<K extends FieldKind> {
  readonly kind: K;
  /** The GraphQL and OpenAPI description (what GraphiQL and /api/docs show). */
  readonly description: string;
  /** The REST validator of a written value (defaults to the kind's plain shape). */
  readonly input?: z.ZodType;
  /** Required in a create body; otherwise `default` applies. */
  readonly required?: boolean;
  /** The value a create body gets when it leaves the field out. */
  readonly default?: unknown;
  /** Never changes after create: a PATCH may send it only unchanged (422 otherwise). */
  readonly immutable?: boolean;
  /**
   * Set by the service, never by a client (e.g. a resource's `abstract`, copied from its template):
   * not part of request bodies, so a body naming it is a 400.
   */
  readonly writable?: false;
  /** Which list filters and sorts take it (default: both, but lists and JSON are not sortable). */
  readonly filter?: boolean;
  readonly sort?: boolean;
  /** `q` searches it. */
  readonly search?: boolean;
  readonly unique?: UniqueRule;
  /**
   * The version of the entity's created event that introduced the field (default 1). Events written
   * before it are upcast with the field's `default`, so a field can be added without rewriting history.
   */
  readonly addedIn?: number;
  /**
   * Part of what a run deploys (resources' variables, code version, integrations, secrets, …): on an
   * entity with approvals, a change to it after approval is a new request that waits for approval
   * again (docs/contract.md §2, "Changes after approval"). Fields without it (names) change freely.
   */
  readonly deploys?: true;
}

/**
 * A plain value stored in a column of its own; `nullable` values may be `null` (an optional fact).
 * `stored` is the event shape when it is not the kind's plain one (e.g. a JSON list of variables).
 */
export interface ValueField extends FieldBase<'text' | 'boolean' | 'integer' | 'json' | 'textList'> {
  readonly nullable?: boolean;
  readonly stored?: z.ZodType;
  /**
   * A JSON field whose shape depends on another field's value (provider-specific configuration):
   * `schemas[value of by]` validates it; a value with no schema takes any object.
   */
  readonly variants?: { readonly by: string; readonly schemas: Readonly<Record<string, z.ZodType>> };
}

/** Text limited to `values`, filtered as an enum. */
export interface EnumField extends FieldBase<'enum'> {
  readonly values: readonly [string, ...string[]];
  readonly nullable?: boolean;
}

/** The GraphQL relation that resolves an `id` or `idList` field (e.g. `integration` → `Integration`). */
export interface RelationDeclaration {
  readonly name: string;
  readonly type: string;
  readonly description: string;
}

/**
 * An integration an entity works through must be of the right kind: of `type`, and of the provider
 * the entity's `providerField` names (entities whose provider is in `except` take any or none).
 */
export interface IntegrationKindRule {
  readonly type: 'cloud' | 'git';
  readonly providerField: string;
  readonly except?: readonly string[];
}

/** The id of one entity of kind `target`, checked on write; referrers block its delete. */
export interface IdField extends FieldBase<'id'> {
  readonly target: string;
  readonly nullable?: boolean;
  readonly relation: RelationDeclaration;
  /** For an integration id: the kind of integration it must be (checked at the edge, which reads that stream). */
  readonly integrationKind?: IntegrationKindRule;
}

/**
 * A list of ids of another entity kept in a link table (`table` pairs `ownerColumn` with
 * `targetColumn`, in `ordinal` order). Lists filter by one id under `filterAs` (e.g. `executorId`).
 */
export interface IdListField extends FieldBase<'idList'> {
  /** The entity kind the ids name, for reference checks (`executor`). */
  readonly target: string;
  readonly link: { readonly table: string; readonly ownerColumn: string; readonly targetColumn: string };
  readonly filterAs: string;
  readonly relation: RelationDeclaration;
}

/** One declared field. */
export type FieldDeclaration = ValueField | EnumField | IdField | IdListField;

/**
 * Write-only values inside an entity's fields (docs/contract.md §5): encrypted in events, shown as
 * `********` in read models and audit views, and a `********` sent back keeps the stored value.
 * Paths are `.`-separated keys with `[]` for every element (`configuration.secrets[].value`).
 */
export interface SecretDeclaration {
  readonly paths: readonly string[];
  /** Only values whose holder qualifies are masked (e.g. sensitive variables); all are encrypted. */
  readonly when?: (holder: Readonly<Record<string, unknown>>) => boolean;
  /** What a 400 says of a `********` where nothing is stored. */
  readonly restoreMessage: string;
  /**
   * Where the secrets are sent (`configuration.apiUrl`): an update that changes one of these must
   * send the secrets again rather than `********`, so that a stored secret never goes to an address
   * its writer did not give it for.
   */
  readonly boundTo?: readonly string[];
}

/** One entity, declared once. */
export interface EntityDeclaration {
  /** The GraphQL type name and OpenAPI schema name, e.g. `Template`. */
  readonly name: string;
  /** Stream prefix, permission resource and reference kind, e.g. `template`. */
  readonly kind: string;
  /** REST path segment, list name and projection name, e.g. `templates`. */
  readonly plural: string;
  readonly table: string;
  /** What the entity is (GraphQL type and OpenAPI schema description). */
  readonly description: string;
  /** The entity's own fields, by API name (camelCase); the column is the snake_case of the name. */
  readonly fields: Readonly<Record<string, FieldDeclaration>>;
  /**
   * Provisioned through the lifecycle (docs/contract.md §3) instead of enabled/disabled: the kit adds
   * `state`, the lifecycle `status` and `lastError` (and `outputs`, what the last run reported).
   */
  readonly lifecycle?: { readonly approvals: boolean; readonly outputs: boolean };
  readonly secrets?: SecretDeclaration;
  /** The actions its writes take (`POST …/actions/{action}`, GraphQL `<Type>Action`), when not its kit's. */
  readonly actions?: readonly string[];
}

/** `cloudResourceTypes` → `cloud_resource_types`. */
export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The common fields a client writes on every catalog entity (description and labels). */
export const COMMON_WRITABLE = {
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
};

/** A list of ids as a client writes it: canonical UUIDs, each at most once (a repeat is named by its index). */
const idListInput = z
  .array(canonicalUuid)
  .max(100, 'at most 100 ids')
  .superRefine((ids, ctx) => {
    ids.forEach((id, index) => {
      if (ids.indexOf(id) < index) ctx.addIssue({ code: 'custom', path: [index], message: `repeats ${id}` });
    });
  });

/** How each kind is stored in events (already validated at the edge, so only its shape). */
export function storedOf(field: FieldDeclaration): z.ZodType {
  if ('stored' in field && field.stored) return field.stored;
  switch (field.kind) {
    case 'enum':
      return z.enum(field.values);
    case 'boolean':
      return z.boolean();
    case 'integer':
      return z.number().int();
    case 'json':
      return z.record(z.string(), z.unknown());
    case 'textList':
    case 'idList':
      return z.array(z.string());
    default:
      return z.string();
  }
}

/** A written value's validator when the field declares none. */
function defaultInputOf(field: FieldDeclaration): z.ZodType {
  switch (field.kind) {
    case 'enum':
      return z.enum(field.values, { message: `must be one of ${field.values.join(', ')}` });
    case 'id':
      return canonicalUuid;
    case 'idList':
      return idListInput;
    default:
      return storedOf(field);
  }
}

/** The TypeScript type a field stores. */
export type StoredValue<F> = F extends { readonly nullable: true } ? StoredKindValue<F> | null : StoredKindValue<F>;

/** The TypeScript type a field kind stores. */
export type StoredKindValue<F> = F extends { readonly stored: z.ZodType<infer T> }
  ? T
  : F extends { readonly kind: 'text' | 'id' }
    ? string
    : F extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] }
      ? V
      : F extends { readonly kind: 'boolean' }
        ? boolean
        : F extends { readonly kind: 'integer' }
          ? number
          : F extends { readonly kind: 'json' }
            ? Record<string, unknown>
            : string[];

/** Whether a field may hold `null`. */
export const isNullable = (field: FieldDeclaration): boolean => field.kind !== 'idList' && field.nullable === true;

/**
 * The fields every catalog entity has, which the kit reads and shows (an entity may still carry one
 * in its events, as resources carry `creatorId` for their owner rules: the common column holds it).
 */
const COMMON_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'description',
  'labels',
  'status',
  'creatorId',
  'revision',
  'createdAt',
  'updatedAt',
]);

/** The entity's own fields, without the common ones it carries in events (what read models add). */
export const ownFields = (entity: EntityDeclaration): [string, FieldDeclaration][] =>
  Object.entries(entity.fields).filter(([name]) => !COMMON_FIELDS.has(name));

/** The fields a run deploys (`deploys: true`), in declaration order. */
export const deployFieldsOf = (entity: EntityDeclaration): readonly string[] =>
  Object.entries(entity.fields).flatMap(([name, field]) => (field.deploys ? [name] : []));

/** Whether a client writes the field (false for fields the service sets). */
const isWritable = (field: FieldDeclaration): boolean => field.writable !== false;

/** The zod shape of an entity's stored fields: the common description and labels, then its own. */
export type StoredShape<E extends EntityDeclaration> = { description: z.ZodString; labels: z.ZodArray<z.ZodString> } & {
  [K in keyof E['fields']]: z.ZodType<StoredValue<E['fields'][K]>>;
};

/** The entity's fields as its events store them (with the common description and labels). */
export function storedFieldsSchema<E extends EntityDeclaration>(entity: E): z.ZodObject<StoredShape<E>> {
  const shape: Record<string, z.ZodType> = { description: z.string(), labels: z.array(z.string()) };
  // Events written before a field existed are upcast with its default (createdEventVersioning), so
  // every created event carries every field.
  for (const [name, field] of Object.entries(entity.fields)) shape[name] = isNullable(field) ? storedOf(field).nullable() : storedOf(field);
  // The shape is built from the same declaration the type is computed from.
  return z.object(shape) as unknown as z.ZodObject<StoredShape<E>>;
}

/** A written value's validator, `null` admitted when the field is nullable. */
export const inputOf = (field: FieldDeclaration): z.ZodType => {
  const input = field.input ?? defaultInputOf(field);
  return isNullable(field) ? input.nullable() : input;
};

/**
 * The schema version of the entity's created event, and the upcasters that lift older created
 * events by adding the defaults of the fields introduced since (see `addedIn`).
 */
export function createdEventVersioning(entity: { readonly fields: Readonly<Record<string, FieldDeclaration>> }): {
  version: number;
  upcasters: Record<number, (data: Readonly<Record<string, unknown>>) => Record<string, unknown>>;
} {
  const fields = Object.entries(entity.fields);
  const version = Math.max(1, ...fields.map(([, field]) => field.addedIn ?? 1));
  const upcasters: Record<number, (data: Readonly<Record<string, unknown>>) => Record<string, unknown>> = {};
  for (let from = 1; from < version; from++) {
    const added = fields.filter(([, field]) => field.addedIn === from + 1);
    upcasters[from] = (data) => ({ ...Object.fromEntries(added.map(([name, field]) => [name, structuredClone(field.default)])), ...data });
  }
  return { version, upcasters };
}

/** The fields of an entity as stored. */
export type StoredFields<E extends EntityDeclaration> = z.infer<z.ZodObject<StoredShape<E>>>;

/** The names of the fields the service sets (never in a request body). */
type ServiceSet<E extends EntityDeclaration> = {
  [K in keyof E['fields']]: E['fields'][K] extends { readonly writable: false } ? K : never;
}[keyof E['fields']];

/** The fields a client writes. */
export type WritableFields<E extends EntityDeclaration> = Omit<StoredFields<E>, ServiceSet<E>>;

/** The fields a create body may leave out and that get no default (e.g. a derived identifier). */
type OptionalOnCreate<E extends EntityDeclaration> = {
  [K in keyof E['fields']]: E['fields'][K] extends { readonly required: true }
    ? never
    : E['fields'][K] extends { readonly default: unknown }
      ? never
      : K;
}[keyof E['fields']];

/** What a create body yields: the writable fields (absent when optional without default) and, for enabled/disabled entities, `status`. */
export type CreateBody<E extends EntityDeclaration> = Omit<WritableFields<E>, OptionalOnCreate<E>> &
  Partial<Pick<WritableFields<E>, OptionalOnCreate<E> & keyof WritableFields<E>>> &
  (E extends { readonly lifecycle: object } ? unknown : { status: 'enabled' | 'disabled' });

/**
 * The POST body: required fields, defaults for the rest, `status` (default enabled; lifecycle
 * entities have none); unknown keys and fields the service sets are refused.
 */
export function createBodySchema<E extends EntityDeclaration>(entity: E): z.ZodType<CreateBody<E>> {
  const shape: Record<string, z.ZodType> = {
    description: COMMON_WRITABLE.description.default(''),
    labels: COMMON_WRITABLE.labels.default([]),
  };
  for (const [name, field] of Object.entries(entity.fields)) {
    if (!isWritable(field)) continue;
    const input = inputOf(field);
    shape[name] = field.required ? input : field.default !== undefined ? input.default(field.default) : input.optional();
  }
  if (!entity.lifecycle) shape.status = z.enum(['enabled', 'disabled']).default('enabled');
  // Each key validates into the type StoredShape gives it (the same declaration builds both).
  return z.strictObject(shape) as unknown as z.ZodType<CreateBody<E>>;
}

/** The PATCH body: any subset; immutable fields are accepted only to be told they are immutable. */
export function patchBodySchema<E extends EntityDeclaration>(entity: E): z.ZodType<Partial<WritableFields<E>>> {
  const shape: Record<string, z.ZodType> = { ...COMMON_WRITABLE };
  for (const [name, field] of Object.entries(entity.fields)) if (isWritable(field)) shape[name] = inputOf(field);
  // Each key validates into the type WritableFields gives it (the same declaration builds both).
  return z.strictObject(shape).partial() as unknown as z.ZodType<Partial<WritableFields<E>>>;
}

/** The names of the fields that never change after create. */
export const immutableFields = (entity: EntityDeclaration): string[] =>
  Object.entries(entity.fields)
    .filter(([, field]) => field.immutable === true)
    .map(([name]) => name);

/** The unique keys a live entity with these field values holds. */
export function uniqueKeysOf(entity: EntityDeclaration, values: Readonly<Record<string, unknown>>) {
  return Object.entries(entity.fields).flatMap(([name, field]) => {
    const value = values[name];
    const rule = field.unique;
    if (!rule || typeof value !== 'string') return [];
    let normalised = rule.normalise ? rule.normalise(value) : value;
    if (rule.caseInsensitive) normalised = normalised.toLowerCase();
    const scope = rule.scope === undefined ? '' : `${String(values[rule.scope])}:`;
    return [{ key: `${rule.key}:${scope}${normalised}`, field: name, message: rule.message(value, values) }];
  });
}

/** The entities these field values point at, each id named with its field (and position in a list). */
export function referencesOf(entity: EntityDeclaration, values: Readonly<Record<string, unknown>>) {
  return Object.entries(entity.fields).flatMap(([name, field]) => {
    const value = values[name];
    if (field.kind === 'id') return typeof value === 'string' ? [{ kind: field.target, id: value, field: name }] : [];
    if (field.kind !== 'idList' || !Array.isArray(value)) return [];
    return (value as string[]).map((id, index) => ({ kind: field.target, id, field: name, index }));
  });
}

/**
 * Each repeat of an id in a declared list, named `field[index]`: the link tables hold each pair
 * once, so the write model refuses what the edge schema would (a second line for every writer).
 */
export function repeatedIds(entity: EntityDeclaration, values: Readonly<Record<string, unknown>>): { field: string; message: string }[] {
  return idListFields(entity).flatMap(([name]) => {
    const ids = values[name];
    if (!Array.isArray(ids)) return [];
    return ids.flatMap((id: unknown, index) =>
      ids.indexOf(id) < index ? [{ field: `${name}[${index}]`, message: `${name} must not repeat ${String(id)}` }] : [],
    );
  });
}

/** The declared id-list fields, by name. */
export const idListFields = (entity: EntityDeclaration): [string, IdListField][] =>
  Object.entries(entity.fields).flatMap(([name, field]): [string, IdListField][] => (field.kind === 'idList' ? [[name, field]] : []));

/** The declared single-id fields, by name. */
export const idFields = (entity: EntityDeclaration): [string, IdField][] =>
  Object.entries(entity.fields).flatMap(([name, field]): [string, IdField][] => (field.kind === 'id' ? [[name, field]] : []));

/** Where the entity's write-only values sit inside its fields (none when it declares no secrets). */
export const secretPathsOf = (entity: EntityDeclaration): readonly string[] => entity.secrets?.paths ?? [];
