import {
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  valueFromASTUntyped,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { AppError } from '../errors.js';
import { fragmentsOf } from './operation.js';

/** The configured bounds (GRAPHQL_MAX_* and MAX_PAGE_SIZE). */
export interface GraphLimits {
  readonly maxDepth: number;
  readonly maxCost: number;
  readonly maxAliases: number;
  readonly maxDocumentBytes: number;
  readonly defaultPageSize: number;
}

/** What one list relation (template executors, resource parents, …) is assumed to hold when costing a query. */
export const RELATION_LIST_ESTIMATE = 10;

/** What a document costs: its depth, aliases and estimated cost. */
export interface DocumentMeasure {
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
}

interface Walk {
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly defaultPageSize: number;
  aliases: number;
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** The page size a root list asks for: `range[1]` (inline or from a variable), else the default. */
function pageSize(args: readonly { name: { value: string }; value: Parameters<typeof valueFromASTUntyped>[0] }[], walk: Walk): number {
  const range = args.find((arg) => arg.name.value === 'range');
  const value = range ? valueFromASTUntyped(range.value, walk.variables) : undefined;
  const limit = Array.isArray(value) ? (value as unknown[])[1] : undefined;
  return typeof limit === 'number' && Number.isFinite(limit) && limit >= 0 ? limit : walk.defaultPageSize;
}

/**
 * Depth and cost of a selection set. Each field costs 1 plus its children; a list multiplies its
 * children by the rows it may return (root lists: their page size; relation lists: an estimate).
 * Introspection fields are free and flat: GraphiQL's schema query is deep by nature and bounded.
 */
function measure(
  selectionSet: SelectionSetNode,
  parent: GraphQLObjectType,
  walk: Walk,
  seen: ReadonlySet<string>,
): { depth: number; cost: number } {
  let depth = 0;
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD || selection.kind === Kind.INLINE_FRAGMENT) {
      const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : undefined;
      if (name !== undefined && seen.has(name)) continue; // validation refuses cycles; never loop here
      const set = name === undefined ? (selection as { selectionSet: SelectionSetNode }).selectionSet : walk.fragments[name]?.selectionSet;
      if (!set) continue;
      const inner = measure(set, parent, walk, name === undefined ? seen : new Set([...seen, name]));
      depth = Math.max(depth, inner.depth);
      cost += inner.cost;
      continue;
    }
    if (selection.name.value.startsWith('__')) continue;
    if (selection.alias) walk.aliases += 1;
    const field = parent.getFields()[selection.name.value];
    if (!field) continue;
    const target = getNamedType(field.type);
    let childDepth = 0;
    let childCost = 0;
    if (selection.selectionSet && isObjectType(target)) {
      const inner = measure(selection.selectionSet, target, walk, seen);
      childDepth = inner.depth;
      childCost = inner.cost;
    }
    const rows =
      !isList(field.type) || !isObjectType(target)
        ? 1
        : field.args.some((a) => a.name === 'range')
          ? pageSize(selection.arguments ?? [], walk)
          : RELATION_LIST_ESTIMATE;
    depth = Math.max(depth, 1 + childDepth);
    cost += 1 + rows * childCost;
  }
  return { depth, cost };
}

/** Measures every operation of a document (the largest depth and cost, all aliases). */
export function measureDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  defaultPageSize: number,
): DocumentMeasure {
  const walk: Walk = { fragments: fragmentsOf(document), variables, defaultPageSize, aliases: 0 };
  let depth = 0;
  let cost = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root =
      definition.operation === OperationTypeNode.MUTATION
        ? schema.getMutationType()
        : definition.operation === OperationTypeNode.QUERY
          ? schema.getQueryType()
          : undefined;
    if (!root) continue;
    const result = measure(definition.selectionSet, root, walk, new Set());
    depth = Math.max(depth, result.depth);
    cost = Math.max(cost, result.cost);
  }
  return { depth, cost, aliases: walk.aliases };
}

const refuse = (message: string, limit: string): AppError => new AppError('VALIDATION', message, { details: { limit } });

/** Refuses a document over a bound before anything runs, naming the bound and the setting that moves it. */
export function enforceLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  limits: GraphLimits,
): void {
  const measured = measureDocument(schema, document, variables, limits.defaultPageSize);
  if (measured.depth > limits.maxDepth) {
    throw refuse(`query depth ${measured.depth} exceeds the maximum of ${limits.maxDepth} (GRAPHQL_MAX_DEPTH)`, 'depth');
  }
  if (measured.aliases > limits.maxAliases) {
    throw refuse(`query uses ${measured.aliases} aliases; the maximum is ${limits.maxAliases} (GRAPHQL_MAX_ALIASES)`, 'aliases');
  }
  if (measured.cost > limits.maxCost) {
    throw refuse(
      `query cost ${measured.cost} exceeds the maximum of ${limits.maxCost} (GRAPHQL_MAX_COST); ask for smaller pages (range) or fewer nested lists`,
      'cost',
    );
  }
}

/** Refuses an oversized document before it is parsed. */
export function enforceDocumentSize(source: string, limits: GraphLimits): void {
  const bytes = Buffer.byteLength(source);
  if (bytes > limits.maxDocumentBytes) {
    throw refuse(
      `query document is ${bytes} bytes; the maximum is ${limits.maxDocumentBytes} (GRAPHQL_MAX_DOCUMENT_BYTES)`,
      'document_size',
    );
  }
}
