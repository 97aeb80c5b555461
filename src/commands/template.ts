import { templateEventTypes, type TemplateFields } from '../events/template.js';
import { catalogAggregate, type CatalogCommand, type CatalogState } from './catalog-entity.js';

/** What a template can be asked to do: the catalog kit's create, update, enable, disable, delete. */
export type TemplateCommand = CatalogCommand<TemplateFields>;
/** A template's write model. */
export type TemplateState = CatalogState<TemplateFields>;

/**
 * Templates: unique by name (case-insensitive) and by slug; the slug never changes; a template points
 * at its executors and parent templates, and is never its own parent.
 */
export const templateAggregate = catalogAggregate<TemplateFields>({
  kind: 'template',
  events: templateEventTypes,
  immutable: ['template'],
  uniqueKeys: ({ name, template }) => [
    { key: `template-name:${name.toLowerCase()}`, field: 'name', message: `a template named "${name}" already exists` },
    { key: `template-slug:${template}`, field: 'template', message: `a template with the slug "${template}" already exists` },
  ],
  references: ({ parentIds, executorIds }) => [
    ...parentIds.map((id, index) => ({ kind: 'template', id, field: 'parentIds', index })),
    ...executorIds.map((id, index) => ({ kind: 'executor', id, field: 'executorIds', index })),
  ],
  check: ({ parentIds }, id) => (parentIds.includes(id) ? [{ field: 'parentIds', message: 'a template cannot be its own parent' }] : []),
});
