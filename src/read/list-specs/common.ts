import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../model/lifecycle.js';
import type { FieldSpec } from '../list-query.js';

/** The list fields every catalog table offers (docs/contract.md §2 common fields; `status` enabled/disabled). */
export const catalogCommonListFields: Readonly<Record<string, FieldSpec>> = {
  id: { column: 'id', type: 'uuid' },
  description: { column: 'description', type: 'text' },
  labels: { column: 'labels', type: 'text[]' },
  status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
  creatorId: { column: 'creator_id', type: 'uuid' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

/** The same for lifecycle entities (storages, executors, resources): `state` and the lifecycle `status`. */
export const lifecycleListFields: Readonly<Record<string, FieldSpec>> = {
  ...catalogCommonListFields,
  state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
  status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
};
