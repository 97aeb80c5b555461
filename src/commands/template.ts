import { templateEventTypes, type TemplateFields } from '../events/template.js';
import { immutableFields, referencesOf, uniqueKeysOf } from '../model/entity.js';
import { templateEntity } from '../model/template.js';
import { catalogAggregate, type CatalogCommand, type CatalogState } from './catalog-entity.js';

/** What a template can be asked to do: the catalog kit's create, update, enable, disable, delete. */
export type TemplateCommand = CatalogCommand<TemplateFields>;
/** A template's write model. */
export type TemplateState = CatalogState<TemplateFields>;

/**
 * Templates: immutability, uniqueness (name, slug) and references (parents, executors) come from
 * the declaration; the one rule of their own is that a template is never its own parent.
 */
export const templateAggregate = catalogAggregate<TemplateFields>({
  kind: templateEntity.kind,
  events: templateEventTypes,
  immutable: immutableFields(templateEntity) as (keyof TemplateFields)[],
  uniqueKeys: (fields) => uniqueKeysOf(templateEntity, fields),
  references: (fields) => referencesOf(templateEntity, fields),
  check: ({ parentIds }, id) => (parentIds.includes(id) ? [{ field: 'parentIds', message: 'a template cannot be its own parent' }] : []),
});
