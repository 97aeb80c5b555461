import { executorEntity } from './executor.js';
import { integrationEntity } from './integration.js';
import { resourceEntity } from './resource.js';
import { secretEntity } from './secret.js';
import { sourceCodeVersionEntity } from './source-code-version.js';
import { sourceCodeEntity } from './source-code.js';
import { storageEntity } from './storage.js';
import { templateEntity } from './template.js';
import { workspaceEntity } from './workspace.js';

/**
 * The catalog's kinds (docs/contract.md §2), in the order every registry lists them: the entities a
 * platform team keeps, each with the permission resource of its kind (roles grant them together) and
 * each a kind a webhook may ask for. A new catalog kind is added here; teams and webhooks, which
 * administer the catalog rather than belong to it, are added to the declarations by ./catalog.ts.
 */
export const CATALOG_ENTITIES = [
  templateEntity,
  integrationEntity,
  secretEntity,
  workspaceEntity,
  sourceCodeEntity,
  sourceCodeVersionEntity,
  storageEntity,
  executorEntity,
  resourceEntity,
] as const;

/** A catalog kind (`template`, …, `resource`). */
export type CatalogKind = (typeof CATALOG_ENTITIES)[number]['kind'];

/** The catalog's kinds, in order. */
export const CATALOG_KINDS: readonly CatalogKind[] = CATALOG_ENTITIES.map((entity) => entity.kind);
