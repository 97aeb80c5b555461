import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../model/lifecycle.js';
import { isNullable, ownFields, type EntityDeclaration, type FieldDeclaration } from '../../model/entity.js';
import { shownFields, type AccountDeclaration } from '../../model/account.js';

type Schema = OpenAPIV3_1.SchemaObject;

const uuid: Schema = { type: 'string', format: 'uuid' };
const timestamp = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

/** The JSON Schema of what a field stores (a declared `stored` shape as zod renders it). */
function valueSchema(field: FieldDeclaration): Schema {
  if ('stored' in field && field.stored) {
    // A stored shape is rendered by zod; the document is one schema, so its `$schema` is dropped.
    const { $schema: _, ...schema } = z.toJSONSchema(field.stored, { unrepresentable: 'any', io: 'output' }) as Schema & {
      $schema?: string;
    };
    return schema;
  }
  switch (field.kind) {
    case 'enum':
      return { type: 'string', enum: [...field.values] };
    case 'id':
      return uuid;
    case 'idList':
      return { type: 'array', items: uuid };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer' };
    case 'json':
      return { type: 'object', additionalProperties: true };
    case 'textList':
      return { type: 'array', items: { type: 'string' } };
    default:
      return { type: 'string' };
  }
}

function fieldSchema(field: FieldDeclaration): Schema {
  const schema = valueSchema(field);
  if (!isNullable(field)) return { ...schema, description: field.description };
  if (schema.type === undefined) return { ...schema, description: field.description };
  return { ...schema, type: [schema.type as OpenAPIV3_1.NonArraySchemaObjectType, 'null'], description: field.description };
}

const lifecycleProperties = (outputs: boolean): Record<string, Schema> => ({
  state: { type: 'string', enum: [...LIFECYCLE_STATES], description: 'Lifecycle state.' },
  status: { type: 'string', enum: [...LIFECYCLE_STATUSES], description: 'Lifecycle status.' },
  lastError: { type: ['string', 'null'], description: 'The error reported by the last failed run (null otherwise).' },
  ...(outputs && {
    outputs: { type: ['object', 'null'], additionalProperties: true, description: 'What the last successful run reported.' },
  }),
});

/**
 * The REST view of a declared catalog entity, as GET, POST and PATCH answer it: the common fields,
 * the lifecycle ones for lifecycle entities, and every declared field, all present in every answer.
 */
export function declaredViewSchema(entity: EntityDeclaration): Schema {
  const properties: Record<string, Schema> = {
    id: { ...uuid, description: `The ${entity.kind.replaceAll('_', ' ')}'s id.` },
    description: { type: 'string', description: 'Free text (empty when not set).' },
    labels: { type: 'array', items: { type: 'string' }, description: 'Labels for grouping and search.' },
    status: { type: 'string', enum: ['enabled', 'disabled'], description: 'Disabled entities cannot be newly referenced.' },
    creatorId: { type: ['string', 'null'], format: 'uuid', description: 'Who created it (null for entities created by the system).' },
    revision: { type: 'integer', description: 'The stream version; send it as If-Match to update safely.' },
    createdAt: timestamp('When it was created.'),
    updatedAt: timestamp('When it last changed.'),
    ...(entity.lifecycle && lifecycleProperties(entity.lifecycle.outputs)),
  };
  for (const [name, field] of ownFields(entity)) properties[name] = fieldSchema(field);
  return { type: 'object', title: entity.name, description: entity.description, properties, required: Object.keys(properties) };
}

/**
 * The REST view of a declared account (users, tokens): its id, every shown field (timestamps as
 * date-times), the revision, creator and timestamps, and what the route adds (`extra`), all present
 * in every answer.
 */
export function accountViewSchema(account: AccountDeclaration, extra: Readonly<Record<string, Schema>> = {}): Schema {
  const properties: Record<string, Schema> = { id: { ...uuid, description: `The ${account.kind.replaceAll('_', ' ')}'s id.` } };
  for (const [name, field] of shownFields(account)) {
    const schema = fieldSchema(field);
    properties[name] = 'timestamp' in field && field.timestamp ? { ...schema, format: 'date-time' } : schema;
  }
  Object.assign(properties, extra, {
    revision: { type: 'integer', description: 'The stream version; send it as If-Match to update safely.' },
    ...(account.creator && {
      creatorId: { type: ['string', 'null'], format: 'uuid', description: 'Who created it (null for the system).' },
    }),
    createdAt: timestamp('When it was created.'),
    updatedAt: timestamp('When it last changed.'),
  });
  return { type: 'object', title: account.name, description: account.description, properties, required: Object.keys(properties) };
}
