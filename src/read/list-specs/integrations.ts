import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/** The integrations list. */
export const integrationListSpec: ListSpec = {
  resource: 'integrations',
  table: 'integrations',
  fields: {
    ...catalogCommonListFields,
    name: { column: 'name', type: 'text' },
    integrationType: { column: 'integration_type', type: 'enum', values: ['cloud', 'git', 'notification'] },
    integrationProvider: { column: 'integration_provider', type: 'text' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
