import { templateEventTypes, type TemplateFields } from '../events/template.js';
import { templateEntity } from '../model/template.js';
import { catalogAggregate, declaredRules, type CatalogCommand, type CatalogState } from './catalog-entity.js';

/** What a template can be asked to do: the catalog kit's create, update, enable, disable, delete. */
export type TemplateCommand = CatalogCommand<TemplateFields>;
/** A template's write model. */
export type TemplateState = CatalogState<TemplateFields>;

/**
 * Templates: immutability, uniqueness (name, slug) and references (parents, executors) come from
 * the declaration; the one rule of their own is that a template is never its own parent.
 */
export const templateAggregate = catalogAggregate<TemplateFields>({
  ...declaredRules<TemplateFields>(templateEntity, ({ parentIds }, id) =>
    parentIds.includes(id) ? [{ field: 'parentIds', message: 'a template cannot be its own parent' }] : [],
  ),
  events: templateEventTypes,
});
