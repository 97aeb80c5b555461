import { eventTypesOf } from '../events/declared.js';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import { storedFieldsSchema, type EntityDeclaration } from '../model/entity.js';
import { declaredProjection, type CatalogProjection } from './catalog-projection.js';

/**
 * A declared kind's read model (docs/adding-a-kind.md): its table's columns, link tables and
 * masking, all from the declaration; made once per kind, so the registry and whoever names one
 * projection (the notices' sources, the benches) hold the same object.
 */

const MADE = new Map<string, CatalogProjection>();

/** The projection of a declared kind (its table's name is the projection's). */
export function projectionOf(entity: EntityDeclaration): CatalogProjection {
  let made = MADE.get(entity.kind);
  if (!made) MADE.set(entity.kind, (made = declaredProjection(entity, eventTypesOf(entity), storedFieldsSchema(entity))));
  return made;
}

/** Every declared kind's projection. */
export const declaredProjections: readonly CatalogProjection[] = DECLARED_ENTITIES.map(projectionOf);
