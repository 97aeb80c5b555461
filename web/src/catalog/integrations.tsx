import { Stack } from '@mui/material';
import {
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  SelectField,
  SelectInput,
  Show,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  required,
  useRecordContext,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ConfigurationInputs } from '../common/ConfigurationInputs';
import { JsonField } from '../common/JsonField';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, enabledFilters, Item, StatusField } from './common';
import { INTEGRATION_CONFIG, INTEGRATION_PROVIDERS, pickConfiguration } from './configurations';

const TYPES = Object.keys(INTEGRATION_PROVIDERS);
const ALL_PROVIDERS = Object.values(INTEGRATION_PROVIDERS).flat();

const transform = (data: Record<string, unknown>, provider?: unknown) => ({
  ...data,
  configuration: pickConfiguration(data.configuration, INTEGRATION_CONFIG[String(provider ?? data.integrationProvider)]),
});

export function IntegrationList() {
  return (
    <List
      resource="integrations"
      filters={enabledFilters([<SelectInput key="t" source="integrationType" choices={choices(TYPES)} alwaysOn />])}
      sort={{ field: 'name', order: 'ASC' }}
      exporter={false}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="integrationType" label="Type" />
        <TextField source="integrationProvider" label="Provider" />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

function CreateProviderInputs() {
  const type: unknown = useWatch({ name: 'integrationType' });
  const provider: unknown = useWatch({ name: 'integrationProvider' });
  const providers = INTEGRATION_PROVIDERS[String(type)] ?? [];
  return (
    <>
      <SelectInput
        source="integrationProvider"
        label="Provider"
        choices={choices(providers)}
        validate={required()}
        disabled={providers.length === 0}
        helperText="Fixed once created."
      />
      <ConfigurationInputs keys={INTEGRATION_CONFIG[String(provider)] ?? []} />
    </>
  );
}

export function IntegrationCreate() {
  return (
    <Create resource="integrations" redirect="show" transform={(d: Record<string, unknown>) => transform(d)}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput source="integrationType" label="Type" choices={choices(TYPES)} validate={required()} />
        <CreateProviderInputs />
        <CommonInputs />
      </SimpleForm>
    </Create>
  );
}

function EditConfiguration() {
  const record = useRecordContext();
  return <ConfigurationInputs keys={INTEGRATION_CONFIG[String(record?.integrationProvider)] ?? []} />;
}

export function IntegrationEdit() {
  return (
    <Edit resource="integrations" mutationMode="pessimistic" redirect="show" transform={(d: Record<string, unknown>) => transform(d)}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput
          source="integrationProvider"
          label="Provider"
          choices={choices(ALL_PROVIDERS)}
          disabled
          helperText="Fixed once created."
        />
        <EditConfiguration />
        <CommonInputs />
      </SimpleForm>
    </Edit>
  );
}

export function IntegrationShow() {
  return (
    <Show resource="integrations" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Type">
            <SelectField source="integrationType" choices={choices(TYPES)} />
          </Item>
          <Item label="Provider">
            <TextField source="integrationProvider" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
        </Stack>
        <Item label="Configuration (secrets masked)">
          <JsonField source="configuration" />
        </Item>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
