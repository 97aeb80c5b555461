import { SECRET_PROVIDERS, SECRET_TYPES } from '../../events/secret.js';
import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/** The secrets list (every filter and sort has an index in migration 009). */
export const secretListSpec: ListSpec = {
  resource: 'secrets',
  table: 'secrets',
  fields: {
    ...catalogCommonListFields,
    name: { column: 'name', type: 'text' },
    secretProvider: { column: 'secret_provider', type: 'enum', values: SECRET_PROVIDERS },
    secretType: { column: 'secret_type', type: 'enum', values: SECRET_TYPES },
    integrationId: { column: 'integration_id', type: 'uuid' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
