import { AutocompleteInput, Datagrid, DateField, DateTimeInput, List, ReferenceInput, SearchInput, SelectInput, TextField, TextInput, usePermissions } from 'react-admin';
import { allows } from '../api/permissions';
import { ActorField } from '../common/ActorField';
import { ChangesField } from '../common/ChangesField';
import { choices, ENTITY_TYPES } from '../common/entities';
import { EntityLinkField } from '../common/EntityLinkField';

function useFilters() {
  const { permissions } = usePermissions<readonly string[]>();
  return [
    <SearchInput key="q" source="q" alwaysOn placeholder="Search action or entity id" />,
    ...(allows(permissions, 'user', 'read')
      ? [
          <ReferenceInput key="actorId" source="actorId" reference="users" alwaysOn>
            <AutocompleteInput label="Actor" optionText="name" filterToQuery={(q: string) => ({ q })} sx={{ minWidth: 220 }} />
          </ReferenceInput>,
        ]
      : []),
    <SelectInput key="entityType" source="entityType" label="Entity type" choices={choices(ENTITY_TYPES)} alwaysOn />,
    <TextInput key="action__like" source="action__like" label="Action contains" />,
    <TextInput key="entityId" source="entityId" label="Entity id" />,
    <DateTimeInput key="at__gte" source="at__gte" label="From" />,
    <DateTimeInput key="at__lte" source="at__lte" label="Until" />,
  ];
}

/** The audit log (docs/contract.md §7): every event with its actor, action, entity and redacted changes. */
export function AuditLogList() {
  const filters = useFilters();
  return (
    <List resource="audit_log" title="Audit log" filters={filters} sort={{ field: 'at', order: 'DESC' }} perPage={25} exporter={false} empty={false}>
      <Datagrid bulkActionButtons={false} rowClick={false} data-testid="audit-log" sx={{ '& td': { verticalAlign: 'top' } }}>
        <DateField source="at" showTime />
        <ActorField label="Actor" sortable={false} />
        <TextField source="action" />
        <EntityLinkField label="Entity" />
        <ChangesField label="Changes (secrets redacted)" />
      </Datagrid>
    </List>
  );
}
