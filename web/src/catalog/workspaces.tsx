import { Stack } from '@mui/material';
import {
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  SelectInput,
  Show,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  UrlField,
  required,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, enabledFilters, Item, RefField, RefInput, StatusField } from './common';

const PROVIDERS = ['github', 'bitbucket', 'azure_devops'];

function IntegrationPicker({ provider }: { readonly provider?: string }) {
  return (
    <RefInput
      source="integrationId"
      reference="integrations"
      label="Integration"
      filter={{ integrationType: 'git', ...(provider ? { integrationProvider: provider } : {}) }}
      validate={required()}
      helperText="A git integration of the same provider."
    />
  );
}

function CreateIntegrationPicker() {
  const provider: unknown = useWatch({ name: 'workspaceProvider' });
  return <IntegrationPicker provider={typeof provider === 'string' ? provider : undefined} />;
}

function WorkspaceInputs({ creating }: { readonly creating: boolean }) {
  return (
    <>
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique per integration." fullWidth />
      <SelectInput
        source="workspaceProvider"
        label="Provider"
        choices={choices(PROVIDERS)}
        validate={required()}
        disabled={!creating}
        helperText="Fixed once created."
      />
      {creating ? <CreateIntegrationPicker /> : <IntegrationPicker />}
      <TextInput source="configuration.url" label="Repository URL" validate={required()} fullWidth />
      <TextInput source="configuration.defaultBranch" label="Default branch" helperText="Default: main." />
      <CommonInputs />
    </>
  );
}

export function WorkspaceList() {
  return (
    <List resource="workspaces" filters={enabledFilters()} sort={{ field: 'name', order: 'ASC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="workspaceProvider" label="Provider" />
        <RefField source="integrationId" reference="integrations" label="Integration" sortable={false} />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function WorkspaceCreate() {
  return (
    <Create resource="workspaces" redirect="show">
      <SimpleForm>
        <WorkspaceInputs creating />
      </SimpleForm>
    </Create>
  );
}

export function WorkspaceEdit() {
  return (
    <Edit resource="workspaces" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <WorkspaceInputs creating={false} />
      </SimpleForm>
    </Edit>
  );
}

export function WorkspaceShow() {
  return (
    <Show resource="workspaces" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Provider">
            <TextField source="workspaceProvider" />
          </Item>
          <Item label="Integration">
            <RefField source="integrationId" reference="integrations" />
          </Item>
          <Item label="Repository">
            <UrlField source="configuration.url" target="_blank" rel="noreferrer" />
          </Item>
          <Item label="Default branch">
            <TextField source="configuration.defaultBranch" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
        </Stack>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
