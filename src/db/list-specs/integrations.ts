import type { ListSpec } from '../list-query.js';

/** The integrations list. */
export const integrationListSpec: ListSpec = {
  resource: 'integrations',
  table: 'integrations',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    integrationType: { column: 'integration_type', type: 'enum', values: ['cloud', 'git', 'notification'] },
    integrationProvider: { column: 'integration_provider', type: 'text' },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
    creatorId: { column: 'creator_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
