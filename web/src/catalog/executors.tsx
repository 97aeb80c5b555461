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
} from 'react-admin';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { StatusChip } from '../common/StatusChip';
import { CommonInputs, CommonShowFooter, Item, RefArrayField, RefArrayInput, RefField, RefInput } from './common';
import { LifecycleSummary } from './LifecycleSummary';
import { lifecycleFilters } from './storages';

function ExecutorInputs() {
  return (
    <>
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique." fullWidth />
      <SelectInput source="runtime" choices={choices(['tofu', 'terraform'])} defaultValue="tofu" />
      <RefInput source="sourceCodeId" reference="source_codes" label="Source code" validate={required()} />
      <TextInput source="sourceCodeVersion" label="Git tag" helperText="A tag or a branch, not both." />
      <TextInput source="sourceCodeBranch" label="Git branch" />
      <TextInput source="sourceCodeFolder" label="Folder" helperText="Relative to the repository root; default ." />
      <TextInput source="commandArgs" label="Command arguments" fullWidth />
      <RefInput
        source="storageId"
        reference="storages"
        label="Storage"
        helperText="Optional: where state files live."
        filter={{ status: undefined }}
      />
      <TextInput source="storagePath" label="Storage path" fullWidth />
      <RefArrayInput source="integrationIds" reference="integrations" label="Integrations" />
      <RefArrayInput source="secretIds" reference="secrets" label="Secrets" />
      <CommonInputs />
    </>
  );
}

export function ExecutorList() {
  return (
    <List resource="executors" filters={lifecycleFilters} sort={{ field: 'name', order: 'ASC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="runtime" />
        <RefField source="sourceCodeId" reference="source_codes" label="Source code" sortable={false} />
        <StatusChip source="state" label="State" />
        <StatusChip source="status" label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function ExecutorCreate() {
  return (
    <Create resource="executors" redirect="show">
      <SimpleForm>
        <ExecutorInputs />
      </SimpleForm>
    </Create>
  );
}

export function ExecutorEdit() {
  return (
    <Edit resource="executors" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <ExecutorInputs />
      </SimpleForm>
    </Edit>
  );
}

export function ExecutorShow() {
  return (
    <Show
      resource="executors"
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
          <Item label="Runtime">
            <TextField source="runtime" />
          </Item>
          <Item label="Source code">
            <RefField source="sourceCodeId" reference="source_codes" />
          </Item>
          <Item label="Tag">
            <TextField source="sourceCodeVersion" emptyText="—" />
          </Item>
          <Item label="Branch">
            <TextField source="sourceCodeBranch" emptyText="—" />
          </Item>
          <Item label="Folder">
            <TextField source="sourceCodeFolder" />
          </Item>
          <Item label="Command arguments">
            <TextField source="commandArgs" emptyText="—" />
          </Item>
          <Item label="Storage">
            <RefField source="storageId" reference="storages" />
          </Item>
          <Item label="Storage path">
            <TextField source="storagePath" emptyText="—" />
          </Item>
          <Item label="Integrations">
            <RefArrayField source="integrationIds" reference="integrations" />
          </Item>
          <Item label="Secrets">
            <RefArrayField source="secretIds" reference="secrets" />
          </Item>
        </Stack>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
