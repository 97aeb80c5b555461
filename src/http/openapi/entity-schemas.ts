import type { OpenAPIV3_1 } from 'openapi-types';
import { isNullable, type EntityDeclaration, type FieldDeclaration } from '../../model/entity.js';

type Schema = OpenAPIV3_1.SchemaObject;

const uuid: Schema = { type: 'string', format: 'uuid' };
const timestamp = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

const VALUE_SCHEMA: Readonly<Record<FieldDeclaration['kind'], Schema>> = {
  text: { type: 'string' },
  boolean: { type: 'boolean' },
  json: { type: 'object', additionalProperties: true },
  textList: { type: 'array', items: { type: 'string' } },
  idList: { type: 'array', items: uuid },
};

function fieldSchema(field: FieldDeclaration): Schema {
  const schema = VALUE_SCHEMA[field.kind];
  if (!isNullable(field)) return { ...schema, description: field.description };
  return { ...schema, type: [schema.type as OpenAPIV3_1.NonArraySchemaObjectType, 'null'], description: field.description };
}

/**
 * The REST view of a declared catalog entity, as GET, POST and PATCH answer it: the common fields
 * and every declared field, all present in every answer.
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
  };
  for (const [name, field] of Object.entries(entity.fields)) properties[name] = fieldSchema(field);
  return { type: 'object', title: entity.name, description: entity.description, properties, required: Object.keys(properties) };
}
