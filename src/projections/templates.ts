import type { Selectable } from 'kysely';
import type { TemplatesTable } from '../storage/schema.js';
import type { DecodedEvent } from '../events/codec.js';
import type { TemplateEvent } from '../events/template.js';
import { templateEvents } from '../events/template.js';
import { actorUserId } from './metadata.js';
import { rowProjection } from './row-projection.js';
import { STREAMS } from '../events/streams.js';

/**
 * A `templates` row plus its two link lists, as the projection folds it in memory (timestamps stay
 * ISO strings: they come from event metadata and go back through jsonb_to_recordset).
 */
export type TemplateRow = Omit<Selectable<TemplatesTable>, 'created_at' | 'updated_at' | 'deleted_at'> & {
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  executor_ids: string[];
  parent_ids: string[];
};


function evolve(row: TemplateRow | undefined, decoded: DecodedEvent): TemplateRow | undefined {
  const event = decoded.event as TemplateEvent;
  const at = decoded.metadata.occurredAt;
  const revision = Number(decoded.streamRevision) + 1;
  if (event.type === 'TemplateCreated') {
    const d = event.data;
    return {
      id: d.id,
      name: d.name,
      template: d.template,
      description: d.description,
      labels: d.labels,
      abstract: d.abstract,
      cloud_resource_types: d.cloudResourceTypes,
      configuration: d.configuration,
      status: d.status,
      creator_id: actorUserId(decoded.metadata),
      revision,
      created_at: at,
      updated_at: at,
      deleted_at: null,
      executor_ids: d.executorIds,
      parent_ids: d.parentIds,
    };
  }
  // An event for a row that was never created is ignored (cannot happen with a valid stream).
  if (!row) return undefined;
  const next = { ...row, revision, updated_at: at };
  switch (event.type) {
    case 'TemplateUpdated': {
      const c = event.data.changes;
      return {
        ...next,
        ...(c.name !== undefined && { name: c.name }),
        ...(c.description !== undefined && { description: c.description }),
        ...(c.labels !== undefined && { labels: c.labels }),
        ...(c.abstract !== undefined && { abstract: c.abstract }),
        ...(c.cloudResourceTypes !== undefined && { cloud_resource_types: c.cloudResourceTypes }),
        ...(c.configuration !== undefined && { configuration: c.configuration }),
        ...(c.executorIds !== undefined && { executor_ids: c.executorIds }),
        ...(c.parentIds !== undefined && { parent_ids: c.parentIds }),
      };
    }
    case 'TemplateEnabled':
      return { ...next, status: 'enabled' };
    case 'TemplateDisabled':
      return { ...next, status: 'disabled' };
    case 'TemplateDeleted':
      // A tombstone keeps the revision, so replaying TemplateCreated cannot resurrect the row.
      return { ...next, deleted_at: at, executor_ids: [], parent_ids: [] };
  }
}

export const templatesProjection = rowProjection<TemplateRow>({
  name: 'templates',
  table: 'templates',
  columns: {
    id: 'uuid',
    name: 'text',
    template: 'text',
    description: 'text',
    labels: 'text[]',
    abstract: 'boolean',
    cloud_resource_types: 'text[]',
    configuration: 'jsonb',
    status: 'text',
    creator_id: 'uuid',
    revision: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    deleted_at: 'timestamptz',
  },
  links: [
    { table: 'template_executors', ownerColumn: 'template_id', targetColumn: 'executor_id', field: 'executor_ids' },
    { table: 'template_parents', ownerColumn: 'template_id', targetColumn: 'parent_id', field: 'parent_ids' },
  ],
  handles: templateEvents.map((d) => d.type),
  rowId: (event) => STREAMS.template.parse(event.streamId),
  evolve,
});
