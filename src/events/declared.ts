import { createdEventVersioning, secretPathsOf, storedFieldsSchema, type EntityDeclaration } from '../model/entity.js';
import type { EventDefinition } from './define.js';
import { catalogEvents, lifecycleEvents, type CatalogEventTypes, type LifecycleEventTypes } from './kits.js';

/**
 * A declared kind's events, from its declaration alone (docs/adding-a-kind.md): the kit's names
 * after the entity's `name` (`TemplateCreated`, …), the stored fields, the write-only paths and the
 * created event's versions. `events/catalog.ts` gives the codec these for every declared kind.
 */

/** The catalog kit's event names of a kind named `name`. */
export const catalogEventTypesOf = <const N extends string>(name: N): CatalogEventTypes<N> => ({
  created: `${name}Created`,
  updated: `${name}Updated`,
  enabled: `${name}Enabled`,
  disabled: `${name}Disabled`,
  deleted: `${name}Deleted`,
});

/** The lifecycle kit's event names of a kind named `name`. */
export const lifecycleEventTypesOf = <const N extends string>(name: N): LifecycleEventTypes<N> => ({
  created: `${name}Created`,
  updated: `${name}Updated`,
  transitioned: `${name}Transitioned`,
  deleted: `${name}Deleted`,
});

/** The event names of a declared kind, by its kit. */
export const eventTypesOf = (entity: EntityDeclaration): CatalogEventTypes<string> | LifecycleEventTypes<string> =>
  entity.lifecycle ? lifecycleEventTypesOf(entity.name) : catalogEventTypesOf(entity.name);

/** The event definitions of a declared kind. */
export function declaredEvents(entity: EntityDeclaration): readonly EventDefinition[] {
  const fields = storedFieldsSchema(entity);
  const secretPaths = secretPathsOf(entity);
  const versioning = createdEventVersioning(entity);
  // The audit log shows what the read model shows: a lifecycle kind hides only the values its `when` picks (sensitive variables).
  return entity.lifecycle
    ? lifecycleEvents(lifecycleEventTypesOf(entity.name), fields, secretPaths, versioning, entity.secrets?.when)
    : catalogEvents(catalogEventTypesOf(entity.name), fields, secretPaths, versioning);
}
