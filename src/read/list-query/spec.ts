/**
 * The vocabulary of the list engine: what a resource declares about its read table (ListSpec) and
 * the validated query the parser hands to the SQL builders (ListQuery). Every REST list and every
 * GraphQL list goes through the same spec, so both edges accept and refuse exactly the same input.
 */

/** How a field's values are validated and which operators it takes. */
export type FieldType = 'text' | 'uuid' | 'boolean' | 'number' | 'datetime' | 'enum' | 'text[]' | 'json';

interface FieldSpecBase<TColumn extends string> {
  /** The column on the spec's table that holds the field. */
  readonly column: TColumn;
  /** Whether `filter` may name the field. Default: true. */
  readonly filterable?: boolean;
  /** Whether `sort` may name the field. Default: true, except false for text[]. */
  readonly sortable?: boolean;
}

/**
 * One field of a list, by its API name. The union makes an enum declare its values and keeps json
 * fields out of filters and sorts, so a spec cannot ask for something the engine would ignore.
 */
export type FieldSpec<TColumn extends string = string> =
  | (FieldSpecBase<TColumn> & { readonly type: 'text' | 'uuid' | 'boolean' | 'datetime' | 'text[]' })
  | (FieldSpecBase<TColumn> & {
      readonly type: 'number';
      /** The column is a PostgreSQL `integer`: values must be whole and fit in 32 bits. */
      readonly integer?: boolean;
    })
  | (FieldSpecBase<TColumn> & { readonly type: 'enum'; readonly values: readonly string[] })
  | { readonly column: TColumn; readonly type: 'json'; readonly filterable?: false; readonly sortable?: false };

/**
 * A relation kept in a link table, filtered as "has one of these ids": e.g. `executorId` on
 * templates is `template_executors(template_id → templates.id, executor_id)`.
 */
export interface LinkSpec {
  readonly table: string;
  /** The link table's column holding the listed row's id. */
  readonly ownerColumn: string;
  /** The link table's column holding the related id the filter compares. */
  readonly targetColumn: string;
}

/** A sort direction. */
export type SortDirection = 'ASC' | 'DESC';

/** What one resource declares about its read table. */
export interface ListSpec<TTable extends string = string, TColumn extends string = string> {
  /** The resource name in `Content-Range` (e.g. `templates`). */
  readonly resource: string;
  /** The read table; queries must select from it unaliased because conditions name it. */
  readonly table: TTable;
  /** API name (camelCase) → column. */
  readonly fields: Readonly<Record<string, FieldSpec<TColumn>>>;
  readonly links?: Readonly<Record<string, LinkSpec>>;
  /** Columns that `q` searches (case-insensitive contains on any). Empty: no `q`. */
  readonly search: readonly TColumn[];
  /** Adds `deleted_at IS NULL`: tombstoned rows never appear. */
  readonly softDelete?: boolean;
  /** The unique key that breaks sort ties and that link tables point at. Default: `id`. */
  readonly idColumn?: TColumn;
  /** Default: `["createdAt", "DESC"]`. */
  readonly defaultSort?: readonly [field: string, direction: SortDirection];
}

/** Server-side bounds on a page. */
export interface ListLimits {
  /** The largest `limit` a client may ask for. */
  readonly maxPageSize: number;
  /** The `limit` when `range` is absent. Default: 100 (capped at maxPageSize). */
  readonly defaultPageSize?: number;
}

/** The default page bounds. */
export const DEFAULT_LIST_LIMITS: ListLimits = { maxPageSize: 1000, defaultPageSize: 100 };

/** A validated scalar, ready to bind. Datetimes are ISO-8601 strings with an explicit offset. */
export type FilterValue = string | number | boolean;

/** One WHERE term; every value is bound as a parameter when the term is compiled. */
export type Condition =
  | {
      readonly kind: 'compare';
      readonly column: string;
      readonly operator: '=' | 'is distinct from' | '>' | '>=' | '<' | '<=';
      readonly value: FilterValue;
    }
  | { readonly kind: 'oneOf'; readonly column: string; readonly values: readonly FilterValue[] }
  | { readonly kind: 'isNull'; readonly column: string; readonly negated: boolean }
  /** Case-insensitive contains on any of the columns (`__like` has one, `q` has the search columns). */
  | { readonly kind: 'contains'; readonly columns: readonly string[]; readonly text: string }
  /** A text[] column holds every one of the values. */
  | { readonly kind: 'hasAll'; readonly column: string; readonly values: readonly string[] }
  /** The link table pairs the row with any of the ids. */
  | { readonly kind: 'linked'; readonly link: LinkSpec; readonly ids: readonly string[] };

/** A list request after validation: what to match, how to order, which slice. */
export interface ListQuery {
  readonly conditions: readonly Condition[];
  readonly sort: { readonly field: string; readonly column: string; readonly direction: SortDirection };
  readonly offset: number;
  readonly limit: number;
}

/** The raw request: REST passes JSON strings, GraphQL passes parsed values; both are accepted. */
export interface ListInput {
  readonly filter?: unknown;
  readonly sort?: unknown;
  readonly range?: unknown;
}

/** Whether a field may appear in `filter` (json never, others unless declared otherwise). */
export const isFilterable = (field: FieldSpec): boolean => field.type !== 'json' && field.filterable !== false;

/** Whether a field may appear in `sort` (json never, text[] only when declared). */
export const isSortable = (field: FieldSpec): boolean => (field.type === 'json' ? false : (field.sortable ?? field.type !== 'text[]'));
