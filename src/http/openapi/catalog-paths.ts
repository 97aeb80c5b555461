import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import { LIFECYCLE_ACTIONS } from '../../model/lifecycle.js';
import * as executors from '../routes/executors.js';
import * as integrations from '../routes/integrations.js';
import { failBody, succeedBody } from '../routes/lifecycle.js';
import * as resources from '../routes/resources.js';
import * as secrets from '../routes/secrets.js';
import * as sourceCodeVersions from '../routes/source-code-versions.js';
import * as sourceCodes from '../routes/source-codes.js';
import * as storages from '../routes/storages.js';
import { createTemplateBody, patchTemplateBody } from '../routes/templates.js';
import * as workspaces from '../routes/workspaces.js';
import { templateEntity } from '../../model/template.js';
import { schemaOf, type Paths } from './components.js';
import { declaredViewSchema } from './entity-schemas.js';
import { entityPaths, type EntityDoc } from './entity-paths.js';

type Schema = OpenAPIV3_1.SchemaObject;

/**
 * Replaces a body's generic `configuration` (validated per provider by a function, not by the body
 * schema) with `anyOf` the per-provider schemas, each titled with its provider. `anyOf` rather than
 * `oneOf` because several providers share one schema (the git providers).
 */
export function withConfiguration(body: Schema, variants: Readonly<Record<string, z.ZodType>>, discriminator: string): Schema {
  const properties = body.properties;
  if (!properties?.configuration) return body;
  const anyOf = Object.entries(variants).map(([provider, schema]) => ({ ...schemaOf(schema), title: provider }));
  const description = `Depends on \`${discriminator}\` (unknown keys are refused): ${Object.entries(variants)
    .map(([provider, schema]) => `${provider} → ${Object.keys(schemaOf(schema).properties ?? {}).join(', ') || '(none)'}`)
    .join('; ')}. On update it is checked against the stored ${discriminator}; write-only secrets sent back as \`********\` keep their stored value.`;
  return { ...body, properties: { ...properties, configuration: { anyOf, description } } };
}

const enableDisable = ['enable', 'disable'] as const;
const lifecycleActionBody: Schema = {
  description: 'Only for `succeed` (`outputs`, default `{}`) and `fail` (`error`, required); other actions take no body.',
  anyOf: [{ ...schemaOf(succeedBody), title: 'succeed' }, { ...schemaOf(failBody), title: 'fail' }],
};
const catalogPermissions = (resource: string) => ({ read: `\`${resource}:read\``, write: `\`${resource}:write\`` });

/** The nine catalog entities of docs/contract.md §2, request bodies straight from the routes' zod schemas. */
export function catalogEntityDocs(): EntityDoc[] {
  return [
    {
      plural: 'templates',
      label: 'template',
      tag: 'Templates',
      create: schemaOf(createTemplateBody),
      patch: schemaOf(patchTemplateBody),
      actions: enableDisable,
      permissions: catalogPermissions('template'),
      view: declaredViewSchema(templateEntity),
    },
    {
      plural: 'integrations',
      label: 'integration',
      tag: 'Integrations',
      create: withConfiguration(schemaOf(integrations.createBody), integrations.integrationConfigurationSchemas, 'integrationProvider'),
      patch: withConfiguration(schemaOf(integrations.patchBody), integrations.integrationConfigurationSchemas, 'integrationProvider'),
      actions: enableDisable,
      permissions: catalogPermissions('integration'),
    },
    {
      plural: 'secrets',
      label: 'secret',
      tag: 'Secrets',
      create: withConfiguration(schemaOf(secrets.createBody), secrets.secretConfigurationSchemas, 'secretProvider'),
      patch: withConfiguration(schemaOf(secrets.patchBody), secrets.secretConfigurationSchemas, 'secretProvider'),
      actions: enableDisable,
      permissions: catalogPermissions('secret'),
    },
    {
      plural: 'workspaces',
      label: 'workspace',
      tag: 'Workspaces',
      create: schemaOf(workspaces.createBody),
      patch: schemaOf(workspaces.patchBody),
      actions: enableDisable,
      permissions: catalogPermissions('workspace'),
    },
    {
      plural: 'source_codes',
      label: 'source code',
      tag: 'Source codes',
      create: schemaOf(sourceCodes.createBody),
      patch: schemaOf(sourceCodes.patchBody),
      actions: enableDisable,
      permissions: catalogPermissions('source_code'),
    },
    {
      plural: 'source_code_versions',
      label: 'source code version',
      tag: 'Source code versions',
      create: schemaOf(sourceCodeVersions.createBody),
      patch: schemaOf(sourceCodeVersions.patchBody),
      actions: enableDisable,
      permissions: catalogPermissions('source_code_version'),
    },
    {
      plural: 'storages',
      label: 'storage',
      tag: 'Storages',
      create: withConfiguration(schemaOf(storages.createBody), storages.storageConfigurationSchemas, 'storageProvider'),
      patch: withConfiguration(schemaOf(storages.patchBody), storages.storageConfigurationSchemas, 'storageProvider'),
      actions: LIFECYCLE_ACTIONS,
      actionBody: lifecycleActionBody,
      permissions: catalogPermissions('storage'),
    },
    {
      plural: 'executors',
      label: 'executor',
      tag: 'Executors',
      create: schemaOf(executors.createBody),
      patch: schemaOf(executors.patchBody),
      actions: LIFECYCLE_ACTIONS,
      actionBody: lifecycleActionBody,
      permissions: catalogPermissions('executor'),
    },
    {
      plural: 'resources',
      label: 'resource',
      tag: 'Resources',
      create: schemaOf(resources.createBody, 'Anyone with `resource:read` may request a resource and then owns it.'),
      patch: schemaOf(resources.patchBody),
      actions: LIFECYCLE_ACTIONS,
      actionBody: lifecycleActionBody,
      // Owners (the creator, even with only resource:read) may update, execute, destroy and delete.
      permissions: { read: '`resource:read`', write: '`resource:write` or to be its creator (approvals need `resource:write`; start/succeed/fail a service account or `resource:admin`)' },
    },
  ];
}

/** Paths of every catalog entity. */
export function catalogPaths(): Paths {
  return Object.assign({}, ...catalogEntityDocs().map(entityPaths)) as Paths;
}
