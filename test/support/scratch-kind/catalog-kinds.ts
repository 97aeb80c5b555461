import { z } from 'zod';
import type { EntityDeclaration } from '../../../src/model/entity.js';
import { ownerIdField, uniqueNameField } from '../../../src/model/inputs.js';
// The real list: the hooks (./hooks.mjs) let this module, and only it, import the file they stand in for.
import { CATALOG_ENTITIES as REAL } from '../../../src/model/catalog-kinds.js';

/**
 * A kind only the scratch-kind test declares (docs/adding-a-kind.md's worked example): a name, a
 * searchable free-text `size`, an owning team. Its table is created by the run (./run.ts) as its
 * migration would.
 */
export const scratchEntity = {
  name: 'Scratch',
  kind: 'scratch',
  plural: 'scratches',
  table: 'scratches',
  description: 'A kind only the tests declare.',
  fields: {
    name: uniqueNameField('scratch-name', 'a scratch'),
    size: {
      kind: 'text',
      description: 'How large it is.',
      input: z.string().max(20, 'at most 20 characters'),
      nullable: true,
      default: null,
      search: true,
    },
    ownerId: ownerIdField(1),
  },
} as const satisfies EntityDeclaration;

/** The service's catalog kinds, and the scratch kind after them. */
export const CATALOG_ENTITIES = [...REAL, scratchEntity] as const;

/** A catalog kind. */
export type CatalogKind = (typeof CATALOG_ENTITIES)[number]['kind'];

/** The catalog's kinds, in order. */
export const CATALOG_KINDS: readonly CatalogKind[] = CATALOG_ENTITIES.map((entity) => entity.kind);
