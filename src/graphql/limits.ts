import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  OperationTypeNode,
  validate,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { AppError, type ErrorCode } from '../errors.js';
import { fragmentsOf } from './operation.js';

/** The configured bounds (GRAPHQL_MAX_* and MAX_PAGE_SIZE). */
export interface GraphLimits {
  readonly maxDepth: number;
  readonly maxCost: number;
  readonly maxAliases: number;
  readonly maxDocumentBytes: number;
  readonly defaultPageSize: number;
  /** The largest answer, in bytes (GRAPHQL_MAX_RESPONSE_BYTES). */
  readonly maxResponseBytes: number;
  /** What a document answered without a valid token may cost and weigh (GRAPHQL_PUBLIC_MAX_*). */
  readonly publicMaxCost: number;
  readonly publicMaxResponseBytes: number;
  /** What a subscription's selection may cost: it is paid again for every change delivered (SUBSCRIPTION_MAX_COST). */
  readonly subscriptionMaxCost: number;
}

/** What one list relation (template executors, resource parents, …) is assumed to hold when costing a query. */
export const RELATION_LIST_ESTIMATE = 10;

/** What a document costs: its depth, aliases and estimated cost (and what one event costs its subscription). */
export interface DocumentMeasure {
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
  /** The largest cost of a subscription operation's selection, per event delivered (0 without one). */
  readonly subscriptionCost: number;
}

interface Walk {
  readonly schema: GraphQLSchema;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly defaultPageSize: number;
  aliases: number;
}

/**
 * How many rows each list field of the introspection types answers on average in this schema
 * (`__Schema.types`: every type; `__Type.fields`: fields per type; `__Field.args`: arguments per
 * field; …), so that introspection is costed like any list: `__schema { types { fields { name } } }`
 * costs about what it answers. Keyed `Type.field`; computed once per schema.
 */
const introspectionRowsBySchema = new WeakMap<GraphQLSchema, ReadonlyMap<string, number>>();

function introspectionRows(schema: GraphQLSchema): ReadonlyMap<string, number> {
  const known = introspectionRowsBySchema.get(schema);
  if (known) return known;
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let fieldArgs = 0;
  let inputFields = 0;
  let enumValues = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        fields += 1;
        fieldArgs += field.args.length;
      }
      interfaces += type.getInterfaces().length;
    }
    if (isInterfaceType(type) || isUnionType(type)) possibleTypes += schema.getPossibleTypes(type).length;
    if (isInputObjectType(type)) inputFields += Object.keys(type.getFields()).length;
    if (isEnumType(type)) enumValues += type.getValues().length;
  }
  const perType = (total: number): number => Math.max(1, Math.ceil(total / Math.max(1, types.length)));
  const rows = new Map<string, number>([
    ['__Schema.types', types.length],
    ['__Schema.directives', Math.max(1, directives.length)],
    ['__Type.fields', perType(fields)],
    ['__Type.interfaces', perType(interfaces)],
    ['__Type.possibleTypes', perType(possibleTypes)],
    ['__Type.enumValues', perType(enumValues)],
    ['__Type.inputFields', perType(inputFields)],
    ['__Field.args', Math.max(1, Math.ceil(fieldArgs / Math.max(1, fields)))],
    ['__Directive.args', Math.max(1, Math.ceil(directives.reduce((n, d) => n + d.args.length, 0) / Math.max(1, directives.length)))],
  ]);
  introspectionRowsBySchema.set(schema, rows);
  return rows;
}

/** The definition of a selected field: the parent's own, or one of the introspection meta fields. */
function fieldOf(selection: FieldNode, parent: GraphQLObjectType, walk: Walk): GraphQLField<unknown, unknown> | undefined {
  const name = selection.name.value;
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === walk.schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return parent.getFields()[name];
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
 * children by the rows it may return (root lists: their page size; relation lists: an estimate;
 * introspection lists: what they hold in this schema). Introspection is costed and its aliases
 * counted like any selection, so a document cannot multiply `__schema` for free; only its depth is
 * exempt (GraphiQL's schema query is deep by nature, and graphql-js bounds introspection nesting).
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
    if (selection.alias) walk.aliases += 1;
    const field = fieldOf(selection, parent, walk);
    if (!field) continue;
    const introspective = selection.name.value.startsWith('__') || parent.name.startsWith('__');
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
        : introspective
          ? (introspectionRows(walk.schema).get(`${parent.name}.${field.name}`) ?? RELATION_LIST_ESTIMATE)
          : field.args.some((a) => a.name === 'range')
            ? pageSize(selection.arguments ?? [], walk)
            : RELATION_LIST_ESTIMATE;
    if (!introspective) depth = Math.max(depth, 1 + childDepth);
    cost += 1 + rows * childCost;
  }
  return { depth, cost };
}

const rootOf = (schema: GraphQLSchema, operation: OperationTypeNode): GraphQLObjectType | null | undefined =>
  operation === OperationTypeNode.MUTATION
    ? schema.getMutationType()
    : operation === OperationTypeNode.SUBSCRIPTION
      ? schema.getSubscriptionType()
      : schema.getQueryType();

/** Measures every operation of a document, of every type (the largest depth and cost, all aliases). */
export function measureDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  defaultPageSize: number,
): DocumentMeasure {
  const walk: Walk = { schema, fragments: fragmentsOf(document), variables, defaultPageSize, aliases: 0 };
  let depth = 0;
  let cost = 0;
  let subscriptionCost = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = rootOf(schema, definition.operation);
    if (!root) continue;
    const result = measure(definition.selectionSet, root, walk, new Set());
    depth = Math.max(depth, result.depth);
    cost = Math.max(cost, result.cost);
    if (definition.operation === OperationTypeNode.SUBSCRIPTION) subscriptionCost = Math.max(subscriptionCost, result.cost);
  }
  return { depth, cost, subscriptionCost, aliases: walk.aliases };
}

const refuse = (message: string, limit: string): AppError => new AppError('LIMIT_EXCEEDED', message, { details: { limit } });

/**
 * Refuses a document over a bound before anything runs, naming the bound and the setting that moves
 * it; answers what it measured, for `enforcePublicLimits` once the caller is known.
 */
export function enforceLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
  limits: GraphLimits,
): DocumentMeasure {
  const measured = measureDocument(schema, document, variables, limits.defaultPageSize);
  if (measured.depth > limits.maxDepth) {
    throw refuse(`query depth ${measured.depth} exceeds the maximum of ${limits.maxDepth} (GRAPHQL_MAX_DEPTH)`, 'depth');
  }
  if (measured.aliases > limits.maxAliases) {
    throw refuse(`query uses ${measured.aliases} aliases; the maximum is ${limits.maxAliases} (GRAPHQL_MAX_ALIASES)`, 'aliases');
  }
  if (measured.cost > limits.maxCost) {
    throw refuse(
      `query cost ${measured.cost} exceeds the maximum of ${limits.maxCost} (GRAPHQL_MAX_COST); ask for smaller pages (range) or fewer ` +
        `nested lists`,
      'cost',
    );
  }
  if (measured.subscriptionCost > limits.subscriptionMaxCost) {
    throw refuse(
      `subscription cost ${measured.subscriptionCost} per change exceeds the maximum of ${limits.subscriptionMaxCost} ` +
        `(SUBSCRIPTION_MAX_COST); select fewer fields`,
      'subscription_cost',
    );
  }
  return measured;
}

/**
 * graphql-js' validation, for the paths Mercurius does not validate (subscriptions over WebSockets):
 * unknown fields, undefined variables, several root fields of a subscription, … each refused as the
 * client's input before anything runs.
 */
export function refuseInvalidDocument(schema: GraphQLSchema, document: DocumentNode): void {
  const errors = validate(schema, document);
  if (errors.length === 0) return;
  throw new AppError('GRAPHQL_VALIDATION_FAILED', errors.map((error) => error.message).join('; '), {
    errors: errors.map((error) => ({ field: 'query', message: error.message })),
  });
}

/**
 * A document answered without a valid token (introspection, `enabledAuthProviders`,
 * `serviceAccountToken`) gets the tighter public budget: anyone can send one, so it must not buy
 * seconds of work. Checked before execution, after authentication.
 */
export function enforcePublicLimits(measured: DocumentMeasure, limits: GraphLimits): void {
  if (measured.cost > limits.publicMaxCost) {
    throw refuse(
      `query cost ${measured.cost} exceeds the maximum of ${limits.publicMaxCost} for a request without a valid token ` +
        `(GRAPHQL_PUBLIC_MAX_COST); sign in, or ask for less (one introspection at a time)`,
      'public_cost',
    );
  }
}

/** The largest answer this request may send: the public bound when it carried no valid token. */
export const maxResponseBytes = (limits: GraphLimits, signedIn: boolean): number =>
  signedIn ? limits.maxResponseBytes : Math.min(limits.maxResponseBytes, limits.publicMaxResponseBytes);

/**
 * What replaces an answer larger than the bound: execution has run, but the answer is not sent
 * (it would cost the service its bandwidth and the client its memory). A GraphQL answer with
 * `data: null` and one error naming the size, the bound and the setting.
 */
export function tooLargeAnswer(bytes: number, limit: number, signedIn: boolean): string {
  const setting = signedIn ? 'GRAPHQL_MAX_RESPONSE_BYTES' : 'GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES';
  const message =
    `the answer is ${bytes} bytes; the maximum is ${limit} (${setting}); ask for fewer fields, smaller pages or fewer ` + `aliases`;
  return JSON.stringify({
    data: null,
    errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED' satisfies ErrorCode, limit: 'response_size' } }],
  });
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
