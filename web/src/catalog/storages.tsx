import { FavoriteButton } from '../common/FavoriteButton';
import { Stack } from '@mui/material';
import {
  Create,
  Datagrid,
  DateField,
  Edit,
  EditButton,
  List,
  SelectInput,
  Show,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  TopToolbar,
  required,
  useRecordContext,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ConfigurationInputs } from '../common/ConfigurationInputs';
import { JsonField } from '../common/JsonField';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { StatusChip } from '../common/StatusChip';
import { CommonInputs, CommonShowFooter, Item, RefField, RefInput, ownerFilters } from './common';
import { pickConfiguration, STORAGE_CONFIG } from './configurations';
import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from './lifecycle';
import { LifecycleSummary } from './LifecycleSummary';

const PROVIDERS = ['aws', 'azurerm', 'gcp'];

const transform = (data: Record<string, unknown>) => ({
  ...data,
  configuration: pickConfiguration(data.configuration, STORAGE_CONFIG[String(data.storageProvider)]),
});

/** Search, state and status filters of lifecycle entities. */
export const lifecycleFilters = [
  <TextInput key="q" source="q" label="Search" alwaysOn />,
  <SelectInput key="state" source="state" choices={choices(LIFECYCLE_STATES)} alwaysOn />,
  <SelectInput key="status" source="status" choices={choices(LIFECYCLE_STATUSES)} alwaysOn />,
  ...ownerFilters,
];

function ProviderInputs({ provider }: { readonly provider: string | undefined }) {
  if (!provider) return null;
  return (
    <>
      <RefInput
        source="integrationId"
        reference="integrations"
        label="Integration"
        filter={{ integrationType: 'cloud', integrationProvider: provider }}
        validate={required()}
        helperText={`A cloud integration of provider ${provider}.`}
      />
      <ConfigurationInputs keys={STORAGE_CONFIG[provider] ?? []} />
    </>
  );
}

function CreateProviderInputs() {
  const provider: unknown = useWatch({ name: 'storageProvider' });
  return <ProviderInputs provider={typeof provider === 'string' ? provider : undefined} />;
}

function EditProviderInputs() {
  const record = useRecordContext();
  return <ProviderInputs provider={typeof record?.storageProvider === 'string' ? record.storageProvider : undefined} />;
}

export function StorageList() {
  return (
    <List resource="storages" filters={lifecycleFilters} sort={{ field: 'name', order: 'ASC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="storageProvider" label="Provider" />
        <RefField source="integrationId" reference="integrations" label="Integration" sortable={false} />
        <StatusChip source="state" label="State" />
        <StatusChip source="status" label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function StorageCreate() {
  return (
    <Create resource="storages" redirect="show" transform={transform}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput
          source="storageProvider"
          label="Provider"
          choices={choices(PROVIDERS)}
          validate={required()}
          helperText="Fixed once created."
        />
        <CreateProviderInputs />
        <CommonInputs />
      </SimpleForm>
    </Create>
  );
}

export function StorageEdit() {
  return (
    <Edit resource="storages" mutationMode="pessimistic" redirect="show" transform={transform}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput source="storageProvider" label="Provider" choices={choices(PROVIDERS)} disabled />
        <EditProviderInputs />
        <CommonInputs />
      </SimpleForm>
    </Edit>
  );
}

export function StorageShow() {
  return (
    <Show
      resource="storages"
      actions={
        <TopToolbar>
          <FavoriteButton />
          <EditButton />
        </TopToolbar>
      }
    >
      <Stack sx={{ p: 2 }}>
        <LifecycleSummary approvals={false} />
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Provider">
            <TextField source="storageProvider" />
          </Item>
          <Item label="Type">
            <TextField source="storageType" />
          </Item>
          <Item label="Integration">
            <RefField source="integrationId" reference="integrations" />
          </Item>
        </Stack>
        <Item label="Configuration">
          <JsonField source="configuration" />
        </Item>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
