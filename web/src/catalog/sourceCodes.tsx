import { RelatedList } from '../common/RelatedList';
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
  TextArrayInput,
  TextField,
  TextInput,
  required,
} from 'react-admin';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, enabledFilters, Item, RefField, RefInput, StatusField } from './common';

const PROVIDERS = ['github', 'gitlab', 'bitbucket', 'azure_devops', 'git_public'];

function SourceCodeInputs({ creating }: { readonly creating: boolean }) {
  return (
    <>
      <ServerErrors />
      <TextInput
        source="sourceCodeUrl"
        label="Repository URL"
        validate={required()}
        helperText="http(s), ssh or git URL, or user@host:path; unique."
        fullWidth
      />
      <SelectInput
        source="sourceCodeProvider"
        label="Provider"
        choices={choices(PROVIDERS)}
        validate={required()}
        disabled={!creating}
        helperText="Fixed once created."
      />
      <SelectInput source="sourceCodeLanguage" label="Language" choices={choices(['opentofu'])} defaultValue="opentofu" />
      <RefInput
        source="integrationId"
        reference="integrations"
        label="Integration"
        filter={{ integrationType: 'git' }}
        helperText="Optional: a git integration for private repositories."
      />
      <TextArrayInput source="gitTags" label="Git tags" fullWidth />
      <TextArrayInput source="gitBranches" label="Git branches" fullWidth />
      <CommonInputs />
    </>
  );
}

export function SourceCodeList() {
  return (
    <List
      resource="source_codes"
      title="Source codes"
      filters={enabledFilters([<SelectInput key="p" source="sourceCodeProvider" label="Provider" choices={choices(PROVIDERS)} alwaysOn />])}
      sort={{ field: 'identifier', order: 'ASC' }}
      exporter={false}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="sourceCodeUrl" label="Repository" sortBy="identifier" />
        <TextField source="sourceCodeProvider" label="Provider" />
        <TextField source="sourceCodeLanguage" label="Language" />
        <RefField source="integrationId" reference="integrations" label="Integration" sortable={false} />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function SourceCodeCreate() {
  return (
    <Create resource="source_codes" title="New source code" redirect="show">
      <SimpleForm>
        <SourceCodeInputs creating />
      </SimpleForm>
    </Create>
  );
}

export function SourceCodeEdit() {
  return (
    <Edit resource="source_codes" title="Source code" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <SourceCodeInputs creating={false} />
      </SimpleForm>
    </Edit>
  );
}

export function SourceCodeShow() {
  return (
    <Show resource="source_codes" title="Source code" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Repository">
            <TextField source="sourceCodeUrl" />
          </Item>
          <Item label="Provider">
            <TextField source="sourceCodeProvider" />
          </Item>
          <Item label="Language">
            <TextField source="sourceCodeLanguage" />
          </Item>
          <Item label="Integration">
            <RefField source="integrationId" reference="integrations" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
          <Item label="Tags">
            <TextField source="gitTags" emptyText="—" />
          </Item>
          <Item label="Branches">
            <TextField source="gitBranches" emptyText="—" />
          </Item>
        </Stack>
        <RelatedList title="Versions" reference="source_code_versions" target="sourceCodeId" nameSource="identifier" />
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
