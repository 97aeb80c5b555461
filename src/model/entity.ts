import { z } from 'zod';
import { canonicalUuid } from '../validation.js';

/**
 * The vocabulary of an entity declaration (docs/adding-a-field.md): each field of an entity is
 * declared once, with what it stores, how a client writes it and how it is read, and every layer
 * derives its part from that — the event schema (events), the REST request bodies and the OpenAPI
 * schemas (http), the projection's columns (projections), the list spec (read) and the GraphQL type
 * (graphql). The common fields every catalog entity has (id, description, labels, status, creator,
 * revision, timestamps) come from the kit and are not declared per entity.
 */

/** What a field stores, and so its event schema, column, list type and GraphQL type. */
export type FieldKind = 'text' | 'boolean' | 'json' | 'textList' | 'idList';

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
  /** Which list filters and sorts take it (default: both, but lists and JSON are not sortable). */
  readonly filter?: boolean;
  readonly sort?: boolean;
  /** `q` searches it. */
  readonly search?: boolean;
  /**
   * Kept unique across live entities by a reservation stream `<kind>-<key>:<value>` (the value
   * lower-cased when `caseInsensitive`); `message` is the 409's text.
   */
  readonly unique?: { readonly key: string; readonly caseInsensitive: boolean; readonly message: (value: string) => string };
  /**
   * The version of the entity's created event that introduced the field (default 1). Events written
   * before it are upcast with the field's `default`, so a field can be added without rewriting history.
   */
  readonly addedIn?: number;
}

/** A plain value stored in a column of its own; `nullable` values may be `null` (an optional fact). */
export interface ValueField extends FieldBase<'text' | 'boolean' | 'json' | 'textList'> {
  readonly nullable?: boolean;
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
  /** The GraphQL relation that resolves the ids (`executors`), with the target type's name. */
  readonly relation: { readonly name: string; readonly type: string; readonly description: string };
}

/** One declared field. */
export type FieldDeclaration = ValueField | IdListField;

/** One entity, declared once. */
export interface EntityDeclaration {
  /** The GraphQL type name and OpenAPI schema name, e.g. `Template`. */
  readonly name: string;
  /** Stream prefix, permission resource and reference kind, e.g. `template`. */
  readonly kind: string;
  /** REST path segment, list name and read table, e.g. `templates`. */
  readonly plural: string;
  readonly table: string;
  /** What the entity is (GraphQL type and OpenAPI schema description). */
  readonly description: string;
  /** The entity's own fields, by API name (camelCase); the column is the snake_case of the name. */
  readonly fields: Readonly<Record<string, FieldDeclaration>>;
}

/** `cloudResourceTypes` → `cloud_resource_types`. */
export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** How each kind is stored in events (already validated at the edge, so only its shape). */
const STORED: Readonly<Record<FieldKind, () => z.ZodType>> = {
  text: () => z.string(),
  boolean: () => z.boolean(),
  json: () => z.record(z.string(), z.unknown()),
  textList: () => z.array(z.string()),
  idList: () => z.array(z.string()),
};

/** A written value's validator when the field declares none. */
const INPUT: Readonly<Record<FieldKind, () => z.ZodType>> = {
  text: () => z.string(),
  boolean: () => z.boolean(),
  json: () => z.record(z.string(), z.unknown()),
  textList: () => z.array(z.string()),
  idList: () =>
    z
      .array(canonicalUuid)
      .max(100, 'at most 100 ids')
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id'),
};

/** The fields common to every catalog entity that a client writes (description and labels). */
export const COMMON_WRITABLE = {
  description: z.string().max(10_000, 'at most 10000 characters'),
  labels: z.array(z.string().trim().min(1, 'must not be empty').max(100, 'at most 100 characters')).max(50, 'at most 50 labels'),
};

/** The TypeScript type a field stores. */
export type StoredValue<F> = F extends { readonly nullable: true } ? StoredKindValue<F> | null : StoredKindValue<F>;

/** The TypeScript type a field kind stores. */
export type StoredKindValue<F> = F extends { readonly kind: 'text' }
  ? string
  : F extends { readonly kind: 'boolean' }
    ? boolean
    : F extends { readonly kind: 'json' }
      ? Record<string, unknown>
      : string[];

/** The zod shape of an entity's stored fields: the common description and labels, then its own. */
export type StoredShape<E extends EntityDeclaration> = { description: z.ZodString; labels: z.ZodArray<z.ZodString> } & {
  [K in keyof E['fields']]: E['fields'][K] extends { readonly nullable: true } ? z.ZodOptional<z.ZodType<StoredValue<E['fields'][K]>>> : z.ZodType<StoredValue<E['fields'][K]>>;
};

/** The entity's fields as its events store them (with the common description and labels). */
export function storedFieldsSchema<E extends EntityDeclaration>(entity: E): z.ZodObject<StoredShape<E>> {
  const shape: Record<string, z.ZodType> = { description: z.string(), labels: z.array(z.string()) };
  // A nullable field may also be absent (an event written before it existed, or a command that
  // leaves it out): absent and null read the same, as a NULL column.
  for (const [name, field] of Object.entries(entity.fields)) shape[name] = isNullable(field) ? STORED[field.kind]().nullable().optional() : STORED[field.kind]();
  // The shape is built from the same declaration the type is computed from.
  return z.object(shape) as unknown as z.ZodObject<StoredShape<E>>;
}

/** Whether a field may hold `null`. */
export const isNullable = (field: FieldDeclaration): boolean => field.kind !== 'idList' && field.nullable === true;

const inputOf = (field: FieldDeclaration): z.ZodType => {
  const input = field.input ?? INPUT[field.kind]();
  return isNullable(field) ? input.nullable() : input;
};

/**
 * The schema version of the entity's created event, and the upcasters that lift older created
 * events by adding the defaults of the fields introduced since (see `addedIn`).
 */
export function createdEventVersioning(entity: EntityDeclaration): { version: number; upcasters: Record<number, (data: Readonly<Record<string, unknown>>) => Record<string, unknown>> } {
  const fields = Object.entries(entity.fields);
  const version = Math.max(1, ...fields.map(([, field]) => field.addedIn ?? 1));
  const upcasters: Record<number, (data: Readonly<Record<string, unknown>>) => Record<string, unknown>> = {};
  for (let from = 1; from < version; from++) {
    const added = fields.filter(([, field]) => field.addedIn === from + 1);
    upcasters[from] = (data) => ({ ...Object.fromEntries(added.map(([name, field]) => [name, structuredClone(field.default)])), ...data });
  }
  return { version, upcasters };
}

/** The fields of an entity as stored (and as a create body yields them). */
export type StoredFields<E extends EntityDeclaration> = z.infer<z.ZodObject<StoredShape<E>>>;

/** The POST body: required fields, defaults for the rest, `status` (default enabled); unknown keys refused. */
export function createBodySchema<E extends EntityDeclaration>(entity: E): z.ZodType<StoredFields<E> & { status: 'enabled' | 'disabled' }> {
  const shape: Record<string, z.ZodType> = {
    description: COMMON_WRITABLE.description.default(''),
    labels: COMMON_WRITABLE.labels.default([]),
  };
  for (const [name, field] of Object.entries(entity.fields)) {
    const input = inputOf(field);
    shape[name] = field.required ? input : field.default !== undefined ? input.default(field.default) : input.optional();
  }
  shape.status = z.enum(['enabled', 'disabled']).default('enabled');
  // Each key validates into the type StoredShape gives it (the same declaration builds both).
  return z.strictObject(shape) as unknown as z.ZodType<StoredFields<E> & { status: 'enabled' | 'disabled' }>;
}

/** The PATCH body: any subset; immutable fields are accepted only to be told they are immutable. */
export function patchBodySchema<E extends EntityDeclaration>(entity: E): z.ZodType<Partial<StoredFields<E>>> {
  const shape: Record<string, z.ZodType> = { ...COMMON_WRITABLE };
  for (const [name, field] of Object.entries(entity.fields)) shape[name] = inputOf(field);
  return z.strictObject(shape).partial() as unknown as z.ZodType<Partial<StoredFields<E>>>;
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
    if (!field.unique || typeof value !== 'string') return [];
    const normalised = field.unique.caseInsensitive ? value.toLowerCase() : value;
    return [{ key: `${entity.kind}-${field.unique.key}:${normalised}`, field: name, message: field.unique.message(value) }];
  });
}

/** The entities these field values point at, each id named with its field and position. */
export function referencesOf(entity: EntityDeclaration, values: Readonly<Record<string, unknown>>) {
  return Object.entries(entity.fields).flatMap(([name, field]) => {
    const ids = values[name];
    if (field.kind !== 'idList' || !Array.isArray(ids)) return [];
    return (ids as string[]).map((id, index) => ({ kind: field.target, id, field: name, index }));
  });
}

/** The declared id-list fields, by name. */
export const idListFields = (entity: EntityDeclaration): [string, IdListField][] =>
  Object.entries(entity.fields).flatMap(([name, field]): [string, IdListField][] => (field.kind === 'idList' ? [[name, field]] : []));
