import { buildSchema, isInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { executorEntity } from '../../src/model/executor.js';
import { integrationEntity } from '../../src/model/integration.js';
import { resourceEntity } from '../../src/model/resource.js';
import { secretEntity } from '../../src/model/secret.js';
import { sourceCodeVersionEntity } from '../../src/model/source-code-version.js';
import { sourceCodeEntity } from '../../src/model/source-code.js';
import { storageEntity } from '../../src/model/storage.js';
import { templateEntity } from '../../src/model/template.js';
import { workspaceEntity } from '../../src/model/workspace.js';
import { createBodySchema, patchBodySchema } from '../../src/model/entity.js';
import { MUTATION_ENTITIES } from '../../src/graphql/mutations.js';
import { buildSchemaDocument } from '../../src/graphql/sdl.js';

const DECLARED = [
  integrationEntity,
  storageEntity,
  secretEntity,
  sourceCodeEntity,
  sourceCodeVersionEntity,
  templateEntity,
  executorEntity,
  resourceEntity,
  workspaceEntity,
];
const keysOf = (schema: unknown): string[] => Object.keys((schema as { shape: Record<string, unknown> }).shape).sort();

describe('GraphQL mutation inputs derive from the declarations', () => {
  const schema = buildSchema(buildSchemaDocument());

  it('every declared kind’s create and update input has exactly the REST body’s fields', () => {
    for (const entity of DECLARED) {
      const create = schema.getType(`${entity.name}CreateInput`);
      const update = schema.getType(`${entity.name}UpdateInput`);
      if (!isInputObjectType(create) || !isInputObjectType(update)) throw new Error(`${entity.name} has no inputs`);
      expect(Object.keys(create.getFields()).sort(), entity.name).toEqual(keysOf(createBodySchema(entity)));
      expect(Object.keys(update.getFields()).sort(), entity.name).toEqual(keysOf(patchBodySchema(entity)));
    }
  });

  it('offers create, update, action and (but for users) delete for every kind with writes', () => {
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
    for (const entity of MUTATION_ENTITIES) {
      const type = entity.type;
      const action = `${type.charAt(0).toLowerCase()}${type.slice(1)}Action`;
      expect(mutations, type).toEqual(expect.arrayContaining([`create${type}`, `update${type}`, action]));
      expect(mutations.includes(`delete${type}`), type).toBe(type !== 'User');
    }
    expect(mutations).toEqual(expect.arrayContaining(['serviceAccountToken', 'createPersonalAccessToken', 'revokePersonalAccessToken']));
  });
});
