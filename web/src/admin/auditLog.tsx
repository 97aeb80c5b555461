import {
  AutocompleteInput,
  Datagrid,
  DateField,
  DateTimeInput,
  FilterButton,
  List,
  ReferenceInput,
  SearchInput,
  SelectInput,
  TextInput,
  TopToolbar,
  usePermissions,
} from 'react-admin';
import { allows } from '../api/permissions';
import { AuditActorField, AuditEntityField, DiffField, VerbField } from '../common/auditFields';
import { choices, ENTITY_TYPES } from '../common/entities';
import { AuditExportButton } from './AuditExportButton';

/** The verbs the service writes (src/projections/audit-history.ts), for the "did" filter. */
const VERBS = [
  'created',
  'updated',
  'enabled',
  'disabled',
  'deleted',
  'approved',
  'rejected',
  'executed',
  'started',
  'succeeded',
  'failed',
  'destroy_requested',
  'recreate_requested',
  'deactivated',
  'reactivated',
  'password_changed',
  'password_rehashed',
  'sessions_revoked',
  'revoked',
  'signed_in',
  'sign_in_failed',
  'session_started',
  'session_refreshed',
  'session_ended',
] as const;

function useFilters() {
  const { permissions } = usePermissions<readonly string[]>();
  return [
    <SearchInput key="q" source="q" alwaysOn placeholder="Search" aria-label="Search action, entity name or id" />,
    ...(allows(permissions, 'user', 'read')
      ? [
          <ReferenceInput key="actorId" source="actorId" reference="users" alwaysOn>
            <AutocompleteInput label="Actor" optionText="name" filterToQuery={(q: string) => ({ q })} sx={{ minWidth: 220 }} />
          </ReferenceInput>,
        ]
      : []),
    <SelectInput key="entityType" source="entityType" label="Entity type" choices={choices(ENTITY_TYPES)} alwaysOn />,
    <SelectInput key="verb" source="verb" label="Action" choices={choices(VERBS)} alwaysOn />,
    <TextInput key="entityName__like" source="entityName__like" label="Entity name contains" />,
    <TextInput key="entityId" source="entityId" label="Entity id" />,
    <DateTimeInput key="at__gte" source="at__gte" label="From" alwaysOn />,
    <DateTimeInput key="at__lte" source="at__lte" label="Until" alwaysOn />,
  ];
}

function AuditLogActions() {
  return (
    <TopToolbar>
      <FilterButton />
      <AuditExportButton />
    </TopToolbar>
  );
}

/** The audit log (docs/contract.md §7): who did what to which entity, and which fields changed from what to what. */
export function AuditLogList() {
  const filters = useFilters();
  return (
    <List
      resource="audit_log"
      title="Audit log"
      filters={filters}
      actions={<AuditLogActions />}
      sort={{ field: 'at', order: 'DESC' }}
      perPage={25}
      exporter={false}
      empty={false}
    >
      <Datagrid bulkActionButtons={false} rowClick={false} data-testid="audit-log" sx={{ '& td': { verticalAlign: 'top' } }}>
        <DateField source="at" label="When" showTime />
        <AuditActorField label="Who" sortable={false} />
        <VerbField label="Did" sortable={false} />
        <AuditEntityField label="What" sortable={false} />
        <DiffField label="Changes (secrets never shown)" sortable={false} />
      </Datagrid>
    </List>
  );
}
