/**
 * The list engine shared by every REST and GraphQL list: a resource declares a ListSpec, requests
 * are validated with parseListQuery, and listWithTotal (or applyFilters / applyPage) turns the result
 * into SQL. See list-query/ for the parts.
 */
export type {
  Condition,
  FieldSpec,
  FieldType,
  FilterValue,
  LinkSpec,
  ListInput,
  ListLimits,
  ListQuery,
  ListSpec,
  SortDirection,
} from './list-query/spec.js';
export { DEFAULT_LIST_LIMITS, isFilterable, isSortable } from './list-query/spec.js';
export { OPERATORS } from './list-query/filter.js';
export { parseListQuery } from './list-query/parse.js';
export { applyFilters, applyPage, containsPattern, contentRange, pageOrder } from './list-query/sql.js';
export { listPage, listWithTotal, type ListPage } from './list-query/page.js';
