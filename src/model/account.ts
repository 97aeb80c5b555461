import { z } from 'zod';
import {
  createdEventVersioning,
  isNullable,
  storedOf,
  inputOf,
  type EnumField,
  type FieldDeclaration,
  type StoredValue,
  type ValueField,
} from './entity.js';

/**
 * The identity side's records (users, auth providers, sessions, personal access tokens), declared
 * with the catalog's field vocabulary (./entity.ts) and a few more keys, so that a field on one of
 * them is a declaration, a migration and the form, as on a catalog entity (docs/adding-a-field.md).
 * Their commands stay their own (passwords, deactivation, revocation, refresh rotation: security
 * rules read best in one place, docs/decisions/0005); what every layer shows and stores of them
 * derives from here: the created and updated events' schemas, the projection's columns, the typed
 * table, the list spec, the REST view and bodies, the OpenAPI schemas and the GraphQL type.
 */

/** What an account field adds to the catalog vocabulary. */
interface AccountFieldKeys {
  /**
   * A hash or token kept for the service's own checks (a password hash, a token's hash): encrypted
   * in the store and redacted in audit views; never written by a client, never in a view.
   */
  readonly secret?: true;
  /** Kept only in the events, not in the read model (a password hash: only the write model checks it). */
  readonly column?: false;
  /** A column the service reads for itself (an SSO subject, a token's hash), never part of a view or a list. */
  readonly hidden?: true;
  /** Shown only to holders of the record's read permission and to the user it is (GraphQL). */
  readonly restricted?: true;
  /** Text that is an ISO date-time: a `timestamptz` column, a `DateTime` in GraphQL, a date-time in OpenAPI. */
  readonly timestamp?: true;
}

/** One declared field of an account record. */
export type AccountField = FieldDeclaration & AccountFieldKeys;

/** A fact later events set (never in the created event), with the value a new record starts with. */
export type AccountStateField = (ValueField | EnumField) &
  AccountFieldKeys & {
    readonly initial: unknown;
    /**
     * Written by the service outside the projection (a token's last use, on every request): the
     * projection leaves the column alone, so an upsert or a replay never overwrites it.
     */
    readonly projected?: false;
  };

/** One account record, declared once. */
export interface AccountDeclaration {
  /** The GraphQL type and OpenAPI schema name, e.g. `User`. */
  readonly name: string;
  /** Stream prefix and permission resource, e.g. `user`. */
  readonly kind: string;
  /** REST path segment and list name, e.g. `users`. */
  readonly plural: string;
  readonly table: string;
  readonly description: string;
  /** The fields the created event carries, by API name (the column is the snake_case of the name). */
  readonly fields: Readonly<Record<string, AccountField>>;
  /** Facts later events set (deactivation, revocation): columns and views, not in the created event. */
  readonly state: Readonly<Record<string, AccountStateField>>;
  /**
   * The fields the updated event may change (`<Name>Updated.changes`); the others are set once, by
   * the created event, or by events of their own (a password by its change event).
   */
  readonly updatable: readonly string[];
  /** The table keeps who created each record (`creator_id`, the acting user of the created event). */
  readonly creator?: true;
  /**
   * Write-only values inside fields (`configuration.clientSecret`): encrypted in the store, redacted
   * in audit views, and `********` in the read model.
   */
  readonly secretPaths?: readonly string[];
}

/** The declared fields and state facts that are columns of the read table, by name. */
export const keptFields = (account: AccountDeclaration): [string, AccountField | AccountStateField][] =>
  [...Object.entries(account.fields), ...Object.entries(account.state)].filter(([, field]) => field.column !== false);

/** The fields a view, a list and the GraphQL type show: columns, neither hidden nor secret. */
export const shownFields = (account: AccountDeclaration): [string, AccountField | AccountStateField][] =>
  keptFields(account).filter(([, field]) => field.hidden !== true && field.secret !== true);

/** Where the record's secrets sit in its created event (encrypted in the store, redacted in audit views). */
export const secretPathsOfAccount = (account: AccountDeclaration): string[] => [
  ...Object.entries(account.fields).flatMap(([name, field]) => (field.secret ? [name] : [])),
  ...(account.secretPaths ?? []),
];

/** Where they sit in its updated event (`changes.…`). */
export const changedSecretPathsOf = (account: AccountDeclaration): string[] =>
  secretPathsOfAccount(account).map((path) => `changes.${path}`);

/** The names among an account's fields whose stored value may be absent (a `stored` shape that is optional). */
type MaybeAbsent<A extends AccountDeclaration> = {
  [K in keyof A['fields']]: undefined extends StoredValue<A['fields'][K]> ? K : never;
}[keyof A['fields']];

/** The created event's data: the id and every declared field as stored (optional where the stored shape is). */
export type AccountEventData<A extends AccountDeclaration> = { id: string } & {
  [K in Exclude<keyof A['fields'], MaybeAbsent<A>>]: StoredValue<A['fields'][K]>;
} & { [K in MaybeAbsent<A>]?: Exclude<StoredValue<A['fields'][K]>, undefined> };

/** The created event's object schema, untyped (the typed view is `accountCreatedSchema`). */
function createdObject(account: AccountDeclaration): z.ZodObject {
  const shape: Record<string, z.ZodType> = { id: z.string() };
  for (const [name, field] of Object.entries(account.fields)) {
    const stored = field.timestamp && !('stored' in field && field.stored) ? z.iso.datetime({ offset: true }) : storedOf(field);
    shape[name] = isNullable(field) ? stored.nullable() : stored;
  }
  return z.object(shape);
}

/** The created event's data schema: the id and every declared field (nullable ones may be null). */
export function accountCreatedSchema<A extends AccountDeclaration>(account: A): z.ZodType<AccountEventData<A>> {
  // The shape is built from the same declaration its type is computed from.
  return createdObject(account) as unknown as z.ZodType<AccountEventData<A>>;
}

/** The fields as the created event stores them. */
export type AccountFields<A extends AccountDeclaration> = Omit<AccountEventData<A>, 'id'>;

/** The names of the fields the updated event may change. */
type Updatable<A extends AccountDeclaration> = A['updatable'][number] & keyof AccountFields<A>;

/** What the updated event's `changes` may hold. */
export type AccountChanges<A extends AccountDeclaration> = Partial<Pick<AccountFields<A>, Updatable<A>>>;

/** The updated event's `changes` schema: any subset of the updatable fields. */
export function accountChangesSchema<A extends AccountDeclaration>(account: A): z.ZodType<AccountChanges<A>> {
  const { shape } = createdObject(account);
  const changes = z.object(Object.fromEntries(account.updatable.map((name) => [name, shape[name] ?? z.never()]))).partial();
  // Built from the same declaration its type is computed from; zod cannot type a shape made at run time.
  return changes as unknown as z.ZodType<AccountChanges<A>>;
}

/** The created event's version and the upcasters that add the defaults of fields added since (`addedIn`). */
export const accountVersioning = (account: AccountDeclaration) => createdEventVersioning(account);

/** The names of the fields a create may leave out: those with a default or that may be null. */
type Defaulted<A extends AccountDeclaration> = {
  [K in keyof A['fields']]: A['fields'][K] extends { readonly default: unknown } ? K : never;
}[keyof A['fields']];

/**
 * What a create command carries: every field, but those with a default may be left out (the
 * decider fills them in with `withDefaults`): a field added later needs no change at every place
 * that creates a record (sign-in, bootstrap, the guest).
 */
export type AccountCreateData<A extends AccountDeclaration> = Omit<AccountFields<A>, Defaulted<A> & keyof AccountFields<A>> &
  Partial<Pick<AccountFields<A>, Defaulted<A> & keyof AccountFields<A>>> & { readonly id: string };

/** The created event's data: the command's fields with the declared defaults for those it left out. */
export function withDefaults<A extends AccountDeclaration>(account: A, data: AccountCreateData<A>): AccountEventData<A> {
  const filled: Record<string, unknown> = { ...data };
  for (const [name, field] of Object.entries(account.fields)) {
    if (filled[name] === undefined && field.default !== undefined) filled[name] = structuredClone(field.default);
  }
  // Every field without a default is required by AccountCreateData; the defaults fill the rest.
  return filled as AccountEventData<A>;
}

/** Whether a client writes the field (not secret, not set by the service). */
export const isClientWritten = (field: AccountField): boolean => field.writable !== false && field.secret !== true;

/** The names of the fields a client writes (neither secret nor set by the service). */
type ClientWritten<A extends AccountDeclaration> = {
  [K in keyof A['fields']]: A['fields'][K] extends { readonly writable: false } | { readonly secret: true } ? never : K;
}[keyof A['fields']];

/** What a create body validates each client-written field into (absent when it is optional without a default). */
export type AccountCreateShape<A extends AccountDeclaration> = {
  [K in ClientWritten<A>]: z.ZodType<
    A['fields'][K] extends { readonly required: true } | { readonly default: unknown }
      ? StoredValue<A['fields'][K]>
      : StoredValue<A['fields'][K]> | undefined
  >;
};

/** The names of the immutable fields. */
type Immutable<A extends AccountDeclaration> = {
  [K in keyof A['fields']]: A['fields'][K] extends { readonly immutable: true } ? K : never;
}[keyof A['fields']];

/** What a PATCH body validates each updatable field (and with `I`, each immutable one) into. */
export type AccountPatchShape<A extends AccountDeclaration, I extends boolean = false> = {
  [K in (Updatable<A> | (I extends true ? Immutable<A> : never)) & ClientWritten<A> & keyof A['fields']]: z.ZodType<
    StoredValue<A['fields'][K]> | undefined
  >;
};

/**
 * The zod shape of what a client writes on create: each client-written field (required, defaulted
 * or optional, as declared); the edge adds its own (a password, which becomes a hash).
 */
export function accountCreateShape<A extends AccountDeclaration>(account: A): AccountCreateShape<A> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(account.fields)) {
    if (!isClientWritten(field)) continue;
    const input = inputOf(field);
    shape[name] = field.required ? input : field.default !== undefined ? input.default(field.default) : input.optional();
  }
  // Each key validates into the type AccountCreateShape gives it (the same declaration builds both).
  return shape as AccountCreateShape<A>;
}

/**
 * The zod shape of a client's changes: the updatable fields, each optional. With `immutable`, the
 * immutable fields too, accepted only for the write to say they are immutable (422 when changed);
 * without, a body naming one is refused as an unknown field.
 */
export function accountPatchShape<A extends AccountDeclaration, I extends boolean = false>(
  account: A,
  options: { immutable?: I } = {},
): AccountPatchShape<A, I> {
  const immutable = options.immutable === true ? Object.entries(account.fields).filter(([, field]) => field.immutable === true) : [];
  const names = [...new Set([...account.updatable, ...immutable.map(([name]) => name)])];
  const shape: Record<string, z.ZodType> = Object.fromEntries(
    names.flatMap((name) => {
      const field = account.fields[name];
      return field && isClientWritten(field) ? [[name, inputOf(field).optional()]] : [];
    }),
  );
  // Each key validates into the type AccountPatchShape gives it (the same declaration builds both).
  return shape as AccountPatchShape<A, I>;
}
