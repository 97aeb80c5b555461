import { describe, expect, it } from 'vitest';
import { WEBHOOK_KINDS as UI_WEBHOOK_KINDS } from '../../web/src/common/entities.js';
import { WEBHOOK_KINDS } from '../../src/model/webhook.js';
import type { z } from 'zod';
import { entityInput } from '../../src/edge/entity-input.js';
import { AppError } from '../../src/errors.js';
import { OBJECT_TYPES } from '../../src/graphql/model.js';
import { declaredViewSchema } from '../../src/http/openapi/entity-schemas.js';
import {
  columnOf,
  createBodySchema,
  ownFields,
  referencesOf,
  repeatedIds,
  uniqueKeysOf,
  type EntityDeclaration,
} from '../../src/model/entity.js';
import { CATALOG_ENTITIES } from '../../src/model/catalog-kinds.js';
import { executorEntity } from '../../src/model/executor.js';
import {
  INTEGRATION_PROVIDERS,
  INTEGRATION_SECRET_KEYS,
  integrationConfigurationSchemas,
  integrationEntity,
} from '../../src/model/integration.js';
import { resourceEntity } from '../../src/model/resource.js';
import { secretConfigurationSchemas, secretEntity } from '../../src/model/secret.js';
import { sourceCodeEntity } from '../../src/model/source-code.js';
import { storageConfigurationSchemas } from '../../src/model/storage.js';
import { workspaceEntity } from '../../src/model/workspace.js';
import { allProjections } from '../../src/projections/registry.js';
import { declaredListSpec } from '../../src/read/list-specs/common.js';

/** The web UI's provider forms (web/ is a Vite project of its own: loaded by path, so the service's tsc does not follow it). */
interface UiForms {
  readonly INTEGRATION_PROVIDERS: Readonly<Record<string, readonly string[]>>;
  readonly INTEGRATION_CONFIG: UiConfig;
  readonly STORAGE_CONFIG: UiConfig;
  readonly SECRET_CONFIG: UiConfig;
}
type UiConfig = Readonly<Record<string, readonly { readonly key: string; readonly required?: boolean; readonly secret?: boolean }[]>>;
const UI_FORMS: string = '../../web/src/catalog/configurations.ts';
const {
  INTEGRATION_CONFIG,
  INTEGRATION_PROVIDERS: UI_INTEGRATION_PROVIDERS,
  SECRET_CONFIG,
  STORAGE_CONFIG,
} = (await import(UI_FORMS)) as UiForms;

const DECLARED: readonly EntityDeclaration[] = CATALOG_ENTITIES;

const ID = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

/** The issues an input refused, as the 400 lists them. */
function refused(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.errors;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe.each(DECLARED.map((entity) => [entity.name, entity] as const))('the declared entity %s', (_name, entity) => {
  it('has a projection that maps every event field to a column or link table', () => {
    // Building a catalog projection throws on an event field without a column (the registry builds them all).
    expect(allProjections.map((p) => p.name)).toContain(entity.table);
  });

  it('lists, filters and sorts every own value field and filters by every id list', () => {
    const spec = declaredListSpec(entity);
    for (const [name, field] of ownFields(entity)) {
      if (field.kind === 'idList') expect(spec.links?.[field.filterAs]).toEqual(field.link);
      else expect(spec.fields[name]?.column, `${entity.name}.${name}`).toBe(columnOf(name));
    }
    expect(Object.keys(spec.fields)).toEqual(expect.arrayContaining(entity.lifecycle ? ['state', 'status'] : ['status']));
  });

  it('shows every own field in its GraphQL type (ids and id lists as their relations) and its OpenAPI view', () => {
    const type = OBJECT_TYPES[entity.name as keyof typeof OBJECT_TYPES];
    const view = declaredViewSchema(entity);
    for (const [name, field] of ownFields(entity)) {
      const graphqlName = field.kind === 'id' || field.kind === 'idList' ? field.relation.name : name;
      expect(type.fields[graphqlName], `${entity.name}.${graphqlName}`).toBeDefined();
      expect(view.properties?.[name], `${entity.name} view ${name}`).toBeDefined();
    }
    expect(view.required).toEqual(Object.keys(view.properties ?? {}));
  });
});

describe('the declaration vocabulary beyond templates', () => {
  it('scopes a unique name to another field and normalises a value before reserving it', () => {
    expect(uniqueKeysOf(workspaceEntity, { name: 'Infra', integrationId: ID })).toEqual([
      { key: `workspace-name:${ID}:infra`, field: 'name', message: `a workspace named "Infra" already exists for integration ${ID}` },
    ]);
    expect(uniqueKeysOf(sourceCodeEntity, { sourceCodeUrl: 'HTTPS://GitHub.com/acme/mods.git' })).toEqual([
      {
        key: 'source-code-url:https://github.com/acme/mods',
        field: 'sourceCodeUrl',
        message: 'a source code with the URL "HTTPS://GitHub.com/acme/mods.git" already exists',
      },
    ]);
  });

  it('references single ids (when set) and id lists, in declaration order', () => {
    expect(referencesOf(executorEntity, { sourceCodeId: ID, storageId: null, integrationIds: [OTHER], secretIds: [] })).toEqual([
      { kind: 'source_code', id: ID, field: 'sourceCodeId' },
      { kind: 'integration', id: OTHER, field: 'integrationIds', index: 0 },
    ]);
  });

  it('names each repeated id of a list for the write model', () => {
    expect(repeatedIds(resourceEntity, { integrationIds: [ID, ID], secretIds: [], parentIds: [OTHER, OTHER, OTHER] })).toEqual([
      { field: 'integrationIds[1]', message: `integrationIds must not repeat ${ID}` },
      { field: 'parentIds[1]', message: `parentIds must not repeat ${OTHER}` },
      { field: 'parentIds[2]', message: `parentIds must not repeat ${OTHER}` },
    ]);
  });

  it('keeps fields the service sets out of request bodies, and gives lifecycle entities no status', () => {
    const body = createBodySchema(resourceEntity).safeParse({ name: 'db', templateId: ID, abstract: true });
    expect(body.success).toBe(false);
    expect(createBodySchema(executorEntity).parse({ name: 'run', sourceCodeId: ID })).not.toHaveProperty('status');
    expect(
      createBodySchema(integrationEntity).parse({ name: 'aws', integrationType: 'cloud', integrationProvider: 'aws', configuration: {} }),
    ).toHaveProperty('status', 'enabled');
  });
});

describe('declared input (src/edge/entity-input.ts)', () => {
  const integrations = entityInput(integrationEntity);
  const aws = { awsAccessKeyId: 'AKIA', awsSecretAccessKey: 'secret', awsAccount: '123' };

  it('validates a configuration by the schema its provider selects, naming each bad key', () => {
    expect(
      refused(() =>
        integrations.parseCreate({
          name: 'a',
          integrationType: 'cloud',
          integrationProvider: 'aws',
          configuration: { awsAccessKeyId: 'AKIA', extra: 1 },
        }),
      ),
    ).toEqual([
      { field: 'configuration.awsSecretAccessKey', message: expect.any(String) as string },
      { field: 'configuration.awsAccount', message: expect.any(String) as string },
      { field: 'configuration.extra', message: 'unknown field' },
    ]);
  });

  it('validates a provider by the type that selects it', () => {
    expect(
      refused(() => integrations.parseCreate({ name: 'a', integrationType: 'git', integrationProvider: 'aws', configuration: {} })),
    ).toEqual([
      {
        field: 'integrationProvider',
        message: 'must be one of github, gitlab, bitbucket, azure_devops, git_public for integrationType git',
      },
    ]);
  });

  it('keeps a stored secret sent back masked, and refuses a mask where nothing is stored', () => {
    const stored = {
      name: 'a',
      integrationType: 'cloud' as const,
      integrationProvider: 'aws',
      configuration: aws,
      description: '',
      labels: [],
      ownerId: null,
    };
    expect(integrations.parsePatch({ configuration: { ...aws, awsSecretAccessKey: '********', awsAccount: '456' } }, stored)).toEqual({
      configuration: { ...aws, awsAccount: '456' },
    });
    expect(
      refused(() =>
        integrations.parseCreate({
          name: 'a',
          integrationType: 'cloud',
          integrationProvider: 'aws',
          configuration: { ...aws, awsSecretAccessKey: '********' },
        }),
      ),
    ).toEqual([{ field: 'configuration.awsSecretAccessKey', message: 'is write-only: send the secret itself, not ********' }]);
  });

  it('leaves an immutable selector to the write model on update (its 422 says it is immutable)', () => {
    const stored = {
      name: 's',
      secretProvider: 'aws' as const,
      secretType: 'tofu' as const,
      configuration: { name: 'x', awsRegion: 'eu' },
      integrationId: ID,
      description: '',
      labels: [],
      ownerId: null,
    };
    expect(
      entityInput(secretEntity).parsePatch({ secretProvider: 'custom', configuration: { name: 'y', awsRegion: 'eu' } }, stored),
    ).toEqual({
      secretProvider: 'custom',
      configuration: { name: 'y', awsRegion: 'eu' },
    });
  });
});

describe("the web UI's provider forms agree with the declarations", () => {
  const keysOf = (schema: z.ZodType) => {
    const shape = (schema as z.ZodObject).shape as Record<string, z.ZodType>;
    return Object.entries(shape).map(([key, value]) => ({ key, required: !value.safeParse(undefined).success }));
  };
  const uiKeys = (keys: readonly { key: string; required?: boolean }[] | undefined) =>
    (keys ?? []).map(({ key, required }) => ({ key, required: required === true }));

  it('offers the same entity kinds to webhooks', () => {
    expect(UI_WEBHOOK_KINDS).toEqual(WEBHOOK_KINDS);
  });

  it('offers the same integration providers per type', () => {
    expect(UI_INTEGRATION_PROVIDERS).toEqual(INTEGRATION_PROVIDERS);
  });

  it.each([
    ['integration', integrationConfigurationSchemas, INTEGRATION_CONFIG],
    ['storage', storageConfigurationSchemas, STORAGE_CONFIG],
  ] as const)('asks for the same %s configuration keys, required where the declaration requires them', (_kind, schemas, ui) => {
    for (const [provider, schema] of Object.entries(schemas)) expect(uiKeys(ui[provider]), provider).toEqual(keysOf(schema));
  });

  it('asks for the same secret configuration keys (custom values have a form of their own)', () => {
    expect(uiKeys(SECRET_CONFIG.aws)).toEqual(keysOf(secretConfigurationSchemas.aws));
    expect(uiKeys(SECRET_CONFIG.gcp)).toEqual(keysOf(secretConfigurationSchemas.gcp));
  });

  it('marks exactly the declared secret keys write-only', () => {
    const secret = Object.values(INTEGRATION_CONFIG).flatMap((keys) => keys.filter((k) => k.secret === true).map((k) => k.key));
    expect([...new Set(secret)].sort()).toEqual([...INTEGRATION_SECRET_KEYS].sort());
  });
});
