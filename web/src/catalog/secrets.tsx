import { Stack } from '@mui/material';
import {
  ArrayInput,
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  PasswordInput,
  SelectInput,
  Show,
  ShowButton,
  SimpleForm,
  SimpleFormIterator,
  TextField,
  TextInput,
  required,
  useRecordContext,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ConfigurationInputs, SECRET_HINT } from '../common/ConfigurationInputs';
import { JsonField } from '../common/JsonField';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, enabledFilters, Item, RefField, RefInput, StatusField } from './common';
import { pickConfiguration, SECRET_CONFIG } from './configurations';

const PROVIDERS = ['aws', 'gcp', 'custom'];

function transform(data: Record<string, unknown>): Record<string, unknown> {
  const provider = String(data.secretProvider);
  const configuration = pickConfiguration(data.configuration, SECRET_CONFIG[provider], provider === 'custom' ? ['secrets'] : []);
  return { ...data, configuration, ...(provider === 'custom' ? { integrationId: null } : {}) };
}

/** Custom secrets: name/value pairs, values write-only. */
function CustomSecrets() {
  return (
    <ArrayInput source="configuration.secrets" label="Secrets">
      <SimpleFormIterator inline>
        <TextInput source="name" validate={required()} helperText={false} />
        <PasswordInput source="value" validate={required()} helperText={SECRET_HINT} autoComplete="new-password" />
      </SimpleFormIterator>
    </ArrayInput>
  );
}

function ProviderInputs({ provider }: { readonly provider: string }) {
  return (
    <>
      {provider !== 'custom' && (
        <RefInput
          source="integrationId"
          reference="integrations"
          label="Integration"
          filter={{ integrationType: 'cloud', integrationProvider: provider }}
          validate={required()}
          helperText={`A cloud integration of provider ${provider}.`}
        />
      )}
      {provider === 'custom' ? <CustomSecrets /> : <ConfigurationInputs keys={SECRET_CONFIG[provider] ?? []} />}
    </>
  );
}

function CreateProviderInputs() {
  const provider: unknown = useWatch({ name: 'secretProvider' });
  return typeof provider === 'string' ? <ProviderInputs provider={provider} /> : null;
}

function EditProviderInputs() {
  const record = useRecordContext();
  return record ? <ProviderInputs provider={String(record.secretProvider)} /> : null;
}

export function SecretList() {
  return (
    <List
      resource="secrets"
      filters={enabledFilters([<SelectInput key="p" source="secretProvider" label="Provider" choices={choices(PROVIDERS)} alwaysOn />])}
      sort={{ field: 'name', order: 'ASC' }}
      exporter={false}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="secretProvider" label="Provider" />
        <RefField source="integrationId" reference="integrations" label="Integration" sortable={false} />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function SecretCreate() {
  return (
    <Create resource="secrets" redirect="show" transform={transform}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput
          source="secretProvider"
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

export function SecretEdit() {
  return (
    <Edit resource="secrets" mutationMode="pessimistic" redirect="show" transform={transform}>
      <SimpleForm>
        <ServerErrors />
        <TextInput source="name" validate={required()} fullWidth />
        <SelectInput source="secretProvider" label="Provider" choices={choices(PROVIDERS)} disabled />
        <EditProviderInputs />
        <CommonInputs />
      </SimpleForm>
    </Edit>
  );
}

export function SecretShow() {
  return (
    <Show resource="secrets" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Provider">
            <TextField source="secretProvider" />
          </Item>
          <Item label="Type">
            <TextField source="secretType" />
          </Item>
          <Item label="Integration">
            <RefField source="integrationId" reference="integrations" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
        </Stack>
        <Item label="Configuration (values masked)">
          <JsonField source="configuration" />
        </Item>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
