import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) {
    throw new GraphQLError(`expected a UUID, got ${JSON.stringify(value)}`, { extensions: { code: 'BAD_USER_INPUT' } });
  }
  // Ids are canonical lower case everywhere (stream ids are built from them).
  return value.toLowerCase();
}

/** The UUID scalar: a canonical lower-case UUID. */
export const UUID = new GraphQLScalarType<string, string>({
  name: 'UUID',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (node) => parseUuid(node.kind === Kind.STRING ? node.value : undefined),
});

/** Date#toISOString's form, which the loader's timestamps already have (./timestamps.ts). */
const CANONICAL_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Timestamps leave as ISO-8601 in Date#toISOString's form, whether they come as Date objects or text. */
export const DateTime = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  serialize: (value) =>
    typeof value === 'string' && CANONICAL_DATE_TIME.test(value)
      ? value
      : (value instanceof Date ? value : new Date(String(value))).toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime()))
      throw new GraphQLError('expected an ISO-8601 date-time', { extensions: { code: 'BAD_USER_INPUT' } });
    return date.toISOString();
  },
});

function literal(node: ValueNode, variables: Readonly<Record<string, unknown>> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((value) => literal(value, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literal(field.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    case Kind.ENUM:
      return node.value;
  }
}

/** Any JSON value, as a variable or written inline (`filter: {name__like: "db"}`). */
export const JSONScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => literal(node, variables),
});
